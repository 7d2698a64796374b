import React from "react";

export const Placeholder = () => (
  <p className="empty">Nothing to pick yet.</p>
);
