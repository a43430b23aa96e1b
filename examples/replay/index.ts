// Replaying recorded agent sessions through real graphs: a scripted model, recorded tools and a
// meter of what the model received. Used by the examples, the demo and the integration tests.
export { ContextMeter, type ModelCallRecord } from "./context-meter.js";
export { ReplayChatModel } from "./replay-chat-model.js";
export { END_OF_TURN_SUFFIX, ReplaySession } from "./replay-session.js";
export { replayTools } from "./replay-tools.js";
