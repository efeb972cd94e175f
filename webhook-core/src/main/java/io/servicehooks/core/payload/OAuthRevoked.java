package io.servicehooks.core.payload;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code oauth.revoke}: a user took back the app's access. From {@code {date_time, user_id,
 * app_id}} or the legacy {@code user_event.revoke} ({@code {date_time, target:{app_id},
 * source:{user_id}}}).
 *
 * <p>{@code userId} and {@code appId} are required: a payload without one fails with {@link
 * MissingPayloadFieldException}; {@code dateTime} may be null.
 *
 * @param dateTime when, as the platform wrote it
 * @param userId the user who revoked
 * @param appId the app
 */
public record OAuthRevoked(String dateTime, String userId, String appId) {

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static OAuthRevoked of(JsonNode node) {
    return new OAuthRevoked(
        Nodes.text(node, "date_time"),
        Nodes.required(
            Nodes.first(
                Nodes.text(node, "user_id"), Nodes.text(Nodes.path(node, "source"), "user_id")),
            "OAuthRevoked",
            "userId",
            "user_id (nor source.user_id)"),
        Nodes.required(
            Nodes.first(
                Nodes.text(node, "app_id"), Nodes.text(Nodes.path(node, "target"), "app_id")),
            "OAuthRevoked",
            "appId",
            "app_id (nor target.app_id)"));
  }
}
