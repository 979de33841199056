/**
 * Node's system errors (a missing file, a folder that is a file, a port in use, a host name that
 * does not resolve) in words a person can act on, instead of `EEXIST: file already exists, mkdir …`
 * and a stack. Null for any other error.
 */
export interface SystemFailure {
  message: string;
  /** What to do about it, when there is something. */
  hint?: string;
}

/** The error text Node gives each code, in words. */
const REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EEXIST: 'it already exists',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder',
  ENOTEMPTY: 'the folder is not empty',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EMFILE: 'too many open files',
  ENAMETOOLONG: 'the name is too long',
  EXDEV: 'it is on another device',
};

/** What the failed system call was trying to do. */
const DOING: Record<string, string> = {
  open: 'cannot open',
  mkdir: 'cannot create the folder',
  rename: 'cannot rename',
  copyfile: 'cannot copy',
  unlink: 'cannot remove',
  rmdir: 'cannot remove',
  scandir: 'cannot read the folder',
  access: 'cannot write to',
  chmod: 'cannot change the mode of',
  stat: 'cannot read',
  lstat: 'cannot read',
  read: 'cannot read',
  write: 'cannot write',
};

interface NodeSystemError {
  code?: unknown;
  syscall?: unknown;
  path?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
}

/** Connections that failed, in words. */
const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
};

export function describeSystemError(err: unknown): SystemFailure | null {
  // fetch() says only "fetch failed": the system error is its cause.
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const described = describeOne(e);
    if (described) return described;
  }
  return null;
}

function describeOne(e: NodeSystemError): SystemFailure | null {
  const code = typeof e.code === 'string' ? e.code : '';
  const syscall = typeof e.syscall === 'string' ? e.syscall : '';
  if (syscall === 'listen') {
    const where = `${String(e.address)}:${String(e.port)}`;
    if (code === 'EADDRINUSE')
      return { message: `${where} is already in use`, hint: 'Is another tollgate serve running? Stop it, or set PORT to a free port.' };
    if (code === 'EACCES') return { message: `not allowed to listen on ${where}`, hint: 'Ports below 1024 need privileges: set PORT to 1024 or above.' };
    if (code === 'EADDRNOTAVAIL') return { message: `cannot listen on ${where}: no such address on this machine`, hint: 'Check HOST.' };
  }
  if (syscall === 'getaddrinfo' && (code === 'ENOTFOUND' || code === 'EAI_AGAIN')) {
    return { message: `cannot resolve the host name ${String(e.hostname)}`, hint: 'Check HOST, or the address that names it.' };
  }
  if (syscall === 'connect' && NETWORK[code]) return { message: `cannot connect to ${String(e.address)}:${String(e.port)}: ${NETWORK[code]}` };
  if (typeof e.path !== 'string') return null;
  // mkdir -p meets a file where a folder should be (DATA_DIR naming a file, say).
  if (syscall === 'mkdir' && (code === 'EEXIST' || code === 'ENOTDIR')) return { message: `cannot create the folder ${e.path}: a file is in the way` };
  const reason = REASONS[code];
  return reason ? { message: `${DOING[syscall] ?? 'cannot use'} ${e.path}: ${reason}` } : null;
}
