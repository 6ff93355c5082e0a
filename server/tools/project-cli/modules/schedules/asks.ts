import "server-only";
import type { Asked } from "../../module";
import type { SchedulesCreateInput } from "./schemas";

// How a schedule reads to the person asked to approve it: “Remind you every Monday at 09:00
// (Europe/Berlin): ‘summarize my week’?”. Common cron shapes are spoken; others are quoted.

const DAYS = {
  en: ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"],
  zh: ["周日", "周一", "周二", "周三", "周四", "周五", "周六"],
};
const pad = (n: string) => n.padStart(2, "0");
const number = (s: string) => (/^\d{1,2}$/.test(s) ? Number(s) : null);

/** Day-of-week field as words (0 and 7 are Sunday), or null when it is not a plain list or the weekday range. */
function days(field: string, language: keyof Asked): string | null {
  if (field === "1-5") return language === "en" ? "every weekday" : "每个工作日";
  const list = field.split(",").map(number);
  if (list.some((d) => d === null || d > 7)) return null;
  const names = list.map((d) => DAYS[language][d! % 7]!);
  return language === "en" ? `every ${names.join(" and ")}` : `每${names.join("、")}`;
}

/** The cron expression as a phrase (“every Monday at 09:00”), or null when it has no plain reading. */
export function spokenCron(cron: string, language: keyof Asked): string | null {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return null;
  const [minute, hour, dom, month, dow] = fields as [string, string, string, string, string];
  if (number(minute) === null || number(hour) === null || month !== "*") return null;
  const time = `${pad(hour)}:${pad(minute)}`;
  if (dom === "*" && dow === "*") return language === "en" ? `every day at ${time}` : `每天 ${time}`;
  if (dom === "*") {
    const d = days(dow, language);
    return d && (language === "en" ? `${d} at ${time}` : `${d} ${time}`);
  }
  if (dow === "*" && number(dom) !== null) return language === "en" ? `on day ${dom} of every month at ${time}` : `每月 ${dom} 日 ${time}`;
  return null;
}

export function asksCreate(input: SchedulesCreateInput): Asked {
  const zone = input.time_zone;
  const when = (language: keyof Asked) => {
    if (input.at) return language === "en" ? `at ${input.at}` : `在 ${input.at}`;
    const spoken = spokenCron(input.cron!, language);
    const phrase = spoken ?? (language === "en" ? `on the schedule “${input.cron}”` : `按计划“${input.cron}”`);
    return `${phrase} (${zone ?? (language === "en" ? "your time zone" : "你的时区")})`;
  };
  const whenZh = when("zh").replace(/ \((.*)\)$/, "（$1）");
  return { en: `Remind you ${when("en")}: ‘${input.message}’?`, zh: `${whenZh}提醒你：“${input.message}”？` };
}

export const asksDelete = (): Asked => ({ en: "Delete this schedule? It will not run again.", zh: "删除这个定时任务？它将不再运行。" });
