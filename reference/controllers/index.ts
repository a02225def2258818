// Every controller the controller manager runs, by upstream name. A new controller is one module
// exporting a ControllerDefinition and one line here.
import type { ControllerDefinition } from './controller.js';
// <<imports>>

export const CONTROLLERS: readonly ControllerDefinition[] = [
  // <<controllers>>
];
