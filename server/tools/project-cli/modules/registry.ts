import "server-only";
import type { ModuleDefinition } from "../module";
import { calendarModule } from "./calendar/module";
import { contactsModule } from "./contacts/module";
import { memoryModule } from "./memory/module";
import { schedulesModule } from "./schedules/module";

// Every project_cli module, one line each, in the order the tool's prose lists them. A new
// module is its folder (exporting its ModuleDefinition) plus its line here.
export const PROJECT_CLI_MODULE_DEFINITIONS: readonly ModuleDefinition[] = [
  calendarModule,
  contactsModule,
  memoryModule,
  schedulesModule,
];
