// Who a container runs as, decided as containerd decides it at CreateContainer.
//
// containerd (pkg/cri/server/container_create_linux.go, containerSpecOpts and generateUserString, 1.6
// and 1.7) builds a user string from the security context: run_as_username wins over run_as_user, and
// run_as_group is appended as ":<gid>"; a group without a user is refused ("user group %q is
// specified without user"). With no user in the security context, the image config's User is used.
// The string is then resolved against the image's /etc/passwd and /etc/group (oci.WithUser): a numeric
// uid needs no entry (its gid is the entry's when there is one, else 0), a name must have one.
//
// The mock's images have no files, so every image shares the simulated /etc/passwd and /etc/group
// below: the entries of Debian's base-passwd that images commonly use, plus distroless's `nonroot`.

export interface PasswdEntry { name: string; uid: number; gid: number; home: string }
export interface GroupEntry { name: string; gid: number }

/** The simulated /etc/passwd of every image (container-view.ts shows it inside the container). */
export const PASSWD: readonly PasswdEntry[] = [
  { name: 'root', uid: 0, gid: 0, home: '/root' },
  { name: 'daemon', uid: 1, gid: 1, home: '/usr/sbin' },
  { name: 'bin', uid: 2, gid: 2, home: '/bin' },
  { name: 'sys', uid: 3, gid: 3, home: '/dev' },
  { name: 'www-data', uid: 33, gid: 33, home: '/var/www' },
  { name: 'nonroot', uid: 65532, gid: 65532, home: '/home/nonroot' },
  { name: 'nobody', uid: 65534, gid: 65534, home: '/nonexistent' },
];

/** The simulated /etc/group of every image. */
export const GROUPS: readonly GroupEntry[] = [
  { name: 'root', gid: 0 },
  { name: 'daemon', gid: 1 },
  { name: 'bin', gid: 2 },
  { name: 'sys', gid: 3 },
  { name: 'adm', gid: 4 },
  { name: 'tty', gid: 5 },
  { name: 'www-data', gid: 33 },
  { name: 'users', gid: 100 },
  { name: 'nonroot', gid: 65532 },
  { name: 'nogroup', gid: 65534 },
  { name: 'nobody', gid: 65534 },
];

/** The identity a container's process gets. */
export interface ResolvedUser {
  uid: number;
  gid: number;
  /** The user name when the user string named one (run_as_username or a named image user). */
  username?: string;
}

/** A user string that cannot be built or resolved; CreateContainer fails with it. */
export class UserError extends Error {
  override name = 'UserError';
}

/** The image config's User syntax: `uid`, `name`, either with `:gid` or `:group`. */
export const USER_SYNTAX = /^(?:\d{1,10}|[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?)(?::(?:\d{1,10}|[A-Za-z_][A-Za-z0-9_.-]{0,31}))?$/;

/**
 * containerd's generateUserString: username > uid, then ":gid". '' when the security context names
 * no user (the image's then applies). Throws UserError for a group without a user.
 */
export function userString(sc: { run_as_username?: string; run_as_user?: { value: string | number } | null; run_as_group?: { value: string | number } | null } | null | undefined): string {
  let user = '';
  if (sc?.run_as_user) user = String(sc.run_as_user.value);
  if (sc?.run_as_username) user = sc.run_as_username;
  const group = sc?.run_as_group ? String(sc.run_as_group.value) : '';
  if (user === '') {
    if (group !== '') throw new UserError(`user group ${JSON.stringify(group)} is specified without user`);
    return '';
  }
  return group !== '' ? `${user}:${group}` : user;
}

/** Resolves `user[:group]` against the simulated /etc/passwd and /etc/group, as oci.WithUser does. */
export function resolveUser(userstr: string): ResolvedUser {
  if (userstr === '') return { uid: 0, gid: 0 };
  const [user, group] = splitOnce(userstr);
  let uid: number;
  let gid: number;
  let username: string | undefined;
  if (/^\d+$/.test(user)) {
    uid = Number(user);
    gid = PASSWD.find((p) => p.uid === uid)?.gid ?? 0;
  } else {
    const entry = PASSWD.find((p) => p.name === user);
    if (!entry) throw new UserError(`unable to find user ${user}: no matching entries in passwd file`);
    ({ uid, gid } = entry);
    username = user;
  }
  if (group !== undefined) {
    if (/^\d+$/.test(group)) gid = Number(group);
    else {
      const g = GROUPS.find((e) => e.name === group);
      if (!g) throw new UserError(`unable to find group ${group}: no matching entries in group file`);
      gid = g.gid;
    }
  }
  return username === undefined ? { uid, gid } : { uid, gid, username };
}

function splitOnce(s: string): [string, string | undefined] {
  const i = s.indexOf(':');
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}
