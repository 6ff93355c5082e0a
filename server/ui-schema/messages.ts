import "server-only";
import type { CalendarEventAction } from "./hints";

// The compiler writes the card's words, so they follow the document's locale. Only the
// languages the product is used in are here; anything else falls back to English.

type ActionWords = { title: string; badge: string };

export type UiMessages = {
  calendarTitle: string;
  events: string;
  eventsCount: (n: number) => string;
  noEvents: string;
  rangeFrom: string;
  rangeUntil: string;
  eventActions: Record<CalendarEventAction, ActionWords>;
  changed: string;
  sharedWith: string;
  contactsTitle: string;
  contactsMatching: (query: string) => string;
  contactsCount: (n: number) => string;
  noContacts: string;
  noContactsMatching: (query: string) => string;
  showing: (shown: number, total: number) => string;
  memoryReadTitle: string;
  memoryUpdatedTitle: string;
  memoryUpdatedBadge: string;
  factsCount: (n: number) => string;
  noFacts: string;
  lastUpdated: string;
  errorTitle: (operation: string | undefined) => string;
  errorBadge: string;
  errorCode: string;
  retryable: string;
};

const en: UiMessages = {
  calendarTitle: "Calendar",
  events: "Events",
  eventsCount: (n) => (n === 1 ? "1 event" : `${n} events`),
  noEvents: "No events in this period.",
  rangeFrom: "From",
  rangeUntil: "Until",
  eventActions: {
    created: { title: "Event created", badge: "Created" },
    updated: { title: "Event updated", badge: "Updated" },
    deleted: { title: "Event deleted", badge: "Deleted" },
    shared: { title: "Event shared", badge: "Shared" },
    invite_accepted: { title: "Invitation accepted", badge: "Accepted" },
    invite_rejected: { title: "Invitation declined", badge: "Declined" },
  },
  changed: "Changed",
  sharedWith: "Shared with",
  contactsTitle: "Contacts",
  contactsMatching: (query) => `Contacts matching “${query}”`,
  contactsCount: (n) => (n === 1 ? "1 contact" : `${n} contacts`),
  noContacts: "No contacts yet.",
  noContactsMatching: (query) => `No contacts match “${query}”.`,
  showing: (shown, total) => `Showing ${shown} of ${total}`,
  memoryReadTitle: "What I remember about you",
  memoryUpdatedTitle: "Memory updated",
  memoryUpdatedBadge: "Saved",
  factsCount: (n) => (n === 1 ? "1 fact" : `${n} facts`),
  noFacts: "Nothing remembered yet.",
  lastUpdated: "Last updated",
  errorTitle: (operation) => (operation ? `Couldn't complete ${operation}` : "Something went wrong"),
  errorBadge: "Error",
  errorCode: "Error code",
  retryable: "This may work if you try again.",
};

const zh: UiMessages = {
  calendarTitle: "日程",
  events: "日程列表",
  eventsCount: (n) => `${n} 个日程`,
  noEvents: "这段时间没有日程。",
  rangeFrom: "开始",
  rangeUntil: "结束",
  eventActions: {
    created: { title: "日程已创建", badge: "已创建" },
    updated: { title: "日程已更新", badge: "已更新" },
    deleted: { title: "日程已删除", badge: "已删除" },
    shared: { title: "日程已共享", badge: "已共享" },
    invite_accepted: { title: "已接受邀请", badge: "已接受" },
    invite_rejected: { title: "已拒绝邀请", badge: "已拒绝" },
  },
  changed: "已修改",
  sharedWith: "共享给",
  contactsTitle: "联系人",
  contactsMatching: (query) => `匹配“${query}”的联系人`,
  contactsCount: (n) => `${n} 位联系人`,
  noContacts: "还没有联系人。",
  noContactsMatching: (query) => `没有匹配“${query}”的联系人。`,
  showing: (shown, total) => `显示 ${shown} / ${total}`,
  memoryReadTitle: "我记得的关于您的信息",
  memoryUpdatedTitle: "记忆已更新",
  memoryUpdatedBadge: "已保存",
  factsCount: (n) => `${n} 条信息`,
  noFacts: "还没有记住任何信息。",
  lastUpdated: "最近更新",
  errorTitle: (operation) => (operation ? `${operation} 执行失败` : "出错了"),
  errorBadge: "错误",
  errorCode: "错误代码",
  retryable: "可以稍后重试。",
};

/** Words for a BCP 47 locale, by its language subtag. */
export function messagesFor(locale: string): UiMessages {
  return locale.toLowerCase().split("-")[0] === "zh" ? zh : en;
}
