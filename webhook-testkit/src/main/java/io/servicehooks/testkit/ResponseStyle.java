package io.servicehooks.testkit;

/**
 * Which of the documented response shapes (docs/protocol.md#registration-api-shapes) the simulator
 * answers with, so that client code can be tested against every variant the platform has used.
 */
public enum ResponseStyle {

  /**
   * The current shapes: objects wrapped in {@code data}, {@code PUT /2/webhooks/{id}} answers
   * {@code {"data":{"valid":bool}}}, an empty webhook list has {@code "data":[]}, replay answers
   * under {@code data}, a created subscription comes back under {@code data}.
   */
  CURRENT,

  /**
   * The older shapes: a created webhook is the bare object, {@code PUT} answers {@code
   * {"data":{"attempted":true}}} when the check passes and a 400 {@code CrcValidationFailed} when
   * it fails, an empty webhook list omits {@code data}, replay answers flat, a created subscription
   * comes back under {@code data.subscription}.
   */
  LEGACY
}
