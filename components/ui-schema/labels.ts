// The few words the renderer adds around a node's own data (field names, answers to an
// invitation). The card's locale picks them, like the compiler's words on the server.

export type RendererLabels = {
  organizer: string;
  attendees: string;
  location: string;
  email: string;
  phone: string;
  allDay: string;
  status: { tentative: string; cancelled: string };
  response: { accepted: string; declined: string; tentative: string; pending: string };
};

const en: RendererLabels = {
  organizer: "Organizer",
  attendees: "Attendees",
  location: "Location",
  email: "Email",
  phone: "Phone",
  allDay: "All day",
  status: { tentative: "Tentative", cancelled: "Cancelled" },
  response: { accepted: "accepted", declined: "declined", tentative: "maybe", pending: "no reply yet" },
};

const zh: RendererLabels = {
  organizer: "组织者",
  attendees: "参与者",
  location: "地点",
  email: "邮箱",
  phone: "电话",
  allDay: "全天",
  status: { tentative: "待定", cancelled: "已取消" },
  response: { accepted: "已接受", declined: "已拒绝", tentative: "待定", pending: "未回复" },
};

export function labelsFor(locale: string): RendererLabels {
  return locale.toLowerCase().split("-")[0] === "zh" ? zh : en;
}

/** Shown when a document fails validation, before any locale can be trusted. */
export const FALLBACK_TEXT = {
  title: "This card can't be displayed",
  details: "Show raw data",
} as const;
