import { writeFileSync } from 'node:fs';
import { generatedFile, generateOpenApiTypes, relativeGeneratedFile } from './openapi-types.js';

writeFileSync(generatedFile, await generateOpenApiTypes());
console.log(`wrote ${relativeGeneratedFile}`);
