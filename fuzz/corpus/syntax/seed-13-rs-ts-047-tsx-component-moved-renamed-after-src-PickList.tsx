import React from "react";

type Props = {
  items: string[];
  onPick: (item: string) => void;
  title?: string;
};

export function PickList({ items, onPick, title = "Choose" }: Props) {
  return (
    <section className="pick-list">
      <h2>{title}</h2>
      <ul>
        {items.map((item) => (
          <li key={item} onClick={() => onPick(item)}>
            {item}
          </li>
        ))}
      </ul>
    </section>
  );
}
