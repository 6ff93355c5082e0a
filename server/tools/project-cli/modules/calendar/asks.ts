import "server-only";
import type { Asked } from "../../module";
import type { CalendarCreateInput, CalendarUpdateInput } from "./schemas";

// How the calendar's writes read to the person asked to approve them. Times are not in the
// sentence: the card shows them below it in the viewer's zone and language (server/approvals/preview.ts).

const quoted = { en: (s: string) => `“${s}”`, zh: (s: string) => `“${s}”` };
const list = { en: (xs: readonly string[]) => xs.join(", "), zh: (xs: readonly string[]) => xs.join("、") };

export function asksCreate(input: CalendarCreateInput): Asked {
  const invite = input.attendees ?? [];
  return {
    en: `Add ${quoted.en(input.title)} to your calendar${invite.length ? ` and invite ${list.en(invite)}` : ""}?`,
    zh: `把${quoted.zh(input.title)}加入你的日历${invite.length ? `并邀请 ${list.zh(invite)}` : ""}？`,
  };
}

const CHANGES: Record<string, Asked> = {
  title: { en: "title", zh: "标题" },
  start_at: { en: "time", zh: "时间" },
  end_at: { en: "time", zh: "时间" },
  duration_minutes: { en: "length", zh: "时长" },
  time_zone: { en: "time zone", zh: "时区" },
  location: { en: "place", zh: "地点" },
  description: { en: "description", zh: "描述" },
};

export function asksUpdate(input: CalendarUpdateInput): Asked {
  const changed = (language: keyof Asked) => [...new Set(Object.keys(input).flatMap((k) => (CHANGES[k] ? [CHANGES[k][language]] : [])))];
  const what = input.title === undefined ? "" : ` (now ${quoted.en(input.title)})`;
  return {
    en: `Change the ${list.en(changed("en")) || "details"} of an event in your calendar${what}? Anyone invited sees the change.`,
    zh: `修改日历中一个活动的${list.zh(changed("zh")) || "内容"}${input.title === undefined ? "" : `（改为${quoted.zh(input.title)}）`}？受邀的人会看到这个改动。`,
  };
}

export const asksDelete = (): Asked => ({
  en: "Delete an event from your calendar? Its invitations are withdrawn with it.",
  zh: "从你的日历中删除一个活动？它的邀请会一并撤回。",
});

export const asksShare = (input: { email: string }): Asked => ({
  en: `Invite ${input.email} to an event in your calendar?`,
  zh: `邀请 ${input.email} 参加你日历中的一个活动？`,
});

export const asksAnswer = (accept: boolean): Asked =>
  accept
    ? { en: "Accept the invitation? The person who invited you will see that you are coming.", zh: "接受这个邀请？邀请你的人会看到你会参加。" }
    : { en: "Decline the invitation? The person who invited you will see that you are not coming.", zh: "谢绝这个邀请？邀请你的人会看到你不参加。" };
