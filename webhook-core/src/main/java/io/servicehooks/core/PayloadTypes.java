package io.servicehooks.core;

import io.servicehooks.core.payload.DirectMessage;
import io.servicehooks.core.payload.Followed;
import io.servicehooks.core.payload.LikeCreated;
import io.servicehooks.core.payload.OAuthRevoked;
import io.servicehooks.core.payload.PostCreated;
import io.servicehooks.core.payload.PostDeleted;
import io.servicehooks.core.payload.ProfileUpdated;
import io.servicehooks.core.payload.ReplayJobStatus;
import io.servicehooks.core.payload.SpaceEvent;
import java.util.List;
import java.util.Map;

/** The event types each payload record of {@link io.servicehooks.core.payload} belongs to. */
final class PayloadTypes {

  static final Map<Class<?>, List<String>> PATTERNS =
      Map.of(
          PostCreated.class,
          List.of(
              "post.create",
              "post.mention.create",
              "post.reply.create",
              "post.quote.create",
              "post.repost.create"),
          PostDeleted.class,
          List.of("post.delete"),
          ProfileUpdated.class,
          List.of("profile.update.*"),
          Followed.class,
          List.of("follow.*", "block.*", "mute.*"),
          LikeCreated.class,
          List.of("like.create"),
          SpaceEvent.class,
          List.of("spaces.*"),
          DirectMessage.class,
          List.of("dm.received", "dm.sent"),
          OAuthRevoked.class,
          List.of("oauth.revoke"),
          ReplayJobStatus.class,
          List.of("replay.job_status"));

  private PayloadTypes() {}

  static List<String> patterns(Class<?> type) {
    List<String> patterns = PATTERNS.get(type);
    if (patterns == null) {
      throw new IllegalArgumentException(
          type.getName()
              + " is not a payload record of io.servicehooks.core.payload; for a type of your own"
              + " use on(pattern, event -> ... event.payloadAs(type))");
    }
    return patterns;
  }
}
