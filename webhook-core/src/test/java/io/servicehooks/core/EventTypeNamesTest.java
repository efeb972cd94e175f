package io.servicehooks.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

final class EventTypeNamesTest {

  private final EventTypeNames names = new EventTypeNames(Map.of());

  /**
   * The legacy table of docs/protocol.md#event-type-names, copied from the document, row by row.
   */
  @ParameterizedTest
  @CsvSource({
    "ProfileBioUpdate, profile.update.bio",
    "ProfilePictureUpdate, profile.update.profile_picture",
    "ProfileBannerPictureUpdate, profile.update.banner_picture",
    "ProfileBannerUpdate, profile.update.banner_picture",
    "ProfileScreennameUpdate, profile.update.screenname",
    "ProfileGeoUpdate, profile.update.geo",
    "ProfileUrlUpdate, profile.update.url",
    "ProfileVerifiedBadgeUpdate, profile.update.verified_badge",
    "NewsNew, news.new",
    "FollowFollow, follow.follow",
    "FollowUnfollow, follow.unfollow",
  })
  void normalize_legacyTableName_givesCurrentName(String legacy, String current) {
    assertThat(names.normalize(legacy)).isEqualTo(current);
  }

  @ParameterizedTest
  @CsvSource({
    "ProfileAffiliateBadgeUpdate, profile.update.affiliate_badge",
    "ProfileHandleUpdate, profile.update.handle",
    "PostCreate, post.create",
    "DmIndicateTyping, dm.indicate.typing",
    "SpacesStart, spaces.start",
    "ChatConversationJoin, chat.conversation.join",
    "BroadcastChat, broadcast.chat",
  })
  void normalize_pascalCaseNotInTable_followsGeneralRule(String legacy, String current) {
    assertThat(names.normalize(legacy)).isEqualTo(current);
  }

  @ParameterizedTest
  @CsvSource({
    "post.create",
    "profile.update.bio",
    "dm.indicate_typing",
    "chat.received",
    "oauth.revoke",
    "something.brand.new",
    "weird_Name",
    "x"
  })
  void normalize_currentOrUnknownName_passesThrough(String name) {
    assertThat(names.normalize(name)).isEqualTo(name);
  }

  @Test
  void normalize_olderSpellingOfConversationJoin_givesDottedName() {
    assertThat(names.normalize("chat.conversation_join")).isEqualTo("chat.conversation.join");
  }

  @Test
  void normalize_userAlias_winsOverTableAndRule() {
    EventTypeNames withAlias =
        new EventTypeNames(Map.of("ProfileBioUpdate", "bio.changed", "TweetCreate", "post.create"));
    assertThat(withAlias.normalize("ProfileBioUpdate")).isEqualTo("bio.changed");
    assertThat(withAlias.normalize("TweetCreate")).isEqualTo("post.create");
    assertThat(withAlias.normalize("NewsNew")).isEqualTo("news.new");
  }

  @Test
  void eventTypes_currentName_appliesTheSameRules() {
    assertThat(EventTypes.currentName("ProfileBannerUpdate"))
        .isEqualTo("profile.update.banner_picture");
    assertThat(EventTypes.currentName("ProfileHandleUpdate")).isEqualTo("profile.update.handle");
    assertThat(EventTypes.currentName("post.create")).isEqualTo("post.create");
  }
}
