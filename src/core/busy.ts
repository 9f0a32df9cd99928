/** Whether the vault-walking thread has work under way (a status may then give its last count). */
export { offThreadBusy } from "../indexing/off-thread.js";
