type BadgeProps = { count: number; max?: number };

export const CountBadge = ({ count, max = 99 }: BadgeProps) => (
  <span className="badge" aria-label={`${count} unread`}>
    {count > max ? `${max}+` : count}
  </span>
);

export function Header({ unread }: { unread: number }) {
  return (
    <header>
      <CountBadge count={unread} />
    </header>
  );
}
