// The current time as metav1.Time serializes it (RFC 3339, UTC, whole seconds). Every write stamps
// it at least once, so the text is made once per second rather than by formatting a Date each time.
let second = Number.NaN;
let text = '';

export function nowRFC3339(): string {
  const s = Math.floor(Date.now() / 1000);
  if (s !== second) {
    second = s;
    text = `${new Date(s * 1000).toISOString().slice(0, 19)}Z`;
  }
  return text;
}
