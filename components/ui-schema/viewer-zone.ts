import { createContext } from "react";

/**
 * The zone a card's times are shown in: the viewer's (set by the chat and console from the
 * user's settings), so a card reads like the rest of the page. Unset (a card rendered alone),
 * times keep the zone written in the card.
 */
export const ViewerZoneContext = createContext<string | undefined>(undefined);
