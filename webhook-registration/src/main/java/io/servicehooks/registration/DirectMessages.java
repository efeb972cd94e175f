package io.servicehooks.registration;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Objects;

/**
 * Direct messages sent for a user ({@link UserClient#directMessages()}): {@code POST
 * /2/dm_conversations/with/{participant_id}/messages}. A send is not repeatable (a repeat may send
 * twice): it is sent once, and any refusal, a 429 included, comes back at once.
 *
 * <p>Immutable and thread-safe.
 */
public final class DirectMessages {

  private final ApiCaller api;
  private final CallObserver observer;

  DirectMessages(ApiCaller api, CallObserver observer) {
    this.api = api;
    this.observer = observer;
  }

  /**
   * Sends {@code text} to the user {@code participantId}, in their one-to-one conversation.
   *
   * @throws IllegalArgumentException before any request, for an empty text or a malformed id
   * @throws WebhookApiException when the platform refuses it: {@link
   *     WebhookApiException.Reason#NOT_PERMITTED} (code 93: the app may not send direct messages,
   *     or the user does not accept them), {@link WebhookApiException.Reason#TOKEN_INVALID}, {@link
   *     WebhookApiException.Reason#RATE_LIMITED} with {@link WebhookApiException#rateLimitReset()},
   *     or another reason with the platform's message
   */
  public SentMessage send(String participantId, String text) throws IOException {
    String id = Posts.checkedId(participantId);
    Objects.requireNonNull(text, "text");
    if (text.isEmpty()) {
      throw new IllegalArgumentException("a direct message needs a text");
    }
    byte[] body = Responses.bytes(Responses.JSON.createObjectNode().put("text", text));
    String path = "/2/dm_conversations/with/" + id + "/messages";
    ApiResponse response =
        observer.observe(
            "POST /2/dm_conversations/with/{participant_id}/messages",
            () -> api.call("POST", path, body, ApiCaller.Repeat.NEVER));
    JsonNode data = Responses.parse(response).path("data");
    String eventId = Responses.text(data, "dm_event_id");
    if (eventId == null) {
      throw ApiErrors.unexpected(response, "the answer names no dm_event_id");
    }
    return new SentMessage(Responses.text(data, "dm_conversation_id"), eventId);
  }

  @Override
  public String toString() {
    return "DirectMessages[user context]";
  }
}
