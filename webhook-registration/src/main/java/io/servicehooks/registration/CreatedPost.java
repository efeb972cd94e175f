package io.servicehooks.registration;

import java.util.List;

/**
 * The post the platform created ({@link Posts#create}).
 *
 * @param id its id
 * @param text its text, as the platform keeps it
 * @param editHistoryPostIds the ids of its versions, the original first (one id for a new post)
 */
public record CreatedPost(String id, String text, List<String> editHistoryPostIds) {

  /** The list copied, null taken as empty. */
  public CreatedPost {
    editHistoryPostIds = editHistoryPostIds == null ? List.of() : List.copyOf(editHistoryPostIds);
  }
}
