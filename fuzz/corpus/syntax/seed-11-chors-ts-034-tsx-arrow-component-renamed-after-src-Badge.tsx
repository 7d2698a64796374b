type BadgeProps = { count: number; max?: number };

export const UnreadBadge = ({ count, max = 99 }: BadgeProps) => (
  <span className="badge" aria-label={`${count} unread`}>
    {count > max ? `${max}+` : count}
  </span>
);

export function Header({ unread }: { unread: number }) {
  return (
    <header>
      <UnreadBadge count={unread} />
    </header>
  );
}
