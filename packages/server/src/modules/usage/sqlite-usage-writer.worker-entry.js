// Worker threads do not inherit the TypeScript loader: register it here, then load the writer.
import { register } from 'tsx/esm/api';

register();
await import('./sqlite-usage-writer.worker.ts');
