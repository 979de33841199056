import { Link } from '../components/link.js';
import { ScreenTitle } from '../components/screen-title.js';
import { hrefOf } from '../routes.js';

/** A screen whose route exists and whose content comes in a later commit. */
export function Placeholder(props: { title: string }) {
  return (
    <>
      <ScreenTitle>{props.title}</ScreenTitle>
      <p>This screen is coming in the next commit.</p>
    </>
  );
}

export function NotFound() {
  return (
    <>
      <ScreenTitle>No such page</ScreenTitle>
      <p>
        The console has no page at this address. <Link href={hrefOf('home')}>Go to Home</Link>.
      </p>
    </>
  );
}
