package io.servicehooks.registration;

/**
 * An id of a lookup that found no post: the platform answers it beside the posts it found (an entry
 * of {@code errors}), not as a failure of the whole call. Deleted posts, wrong ids and posts the
 * caller may not see (title {@code Authorization Error}) come back this way.
 *
 * @param id the id asked for ({@code resource_id}, else {@code value})
 * @param detail the platform's sentence, such as {@code Could not find post with ids: [1].}
 * @param title the kind of problem, such as {@code Not Found Error}
 * @param type the problem's URI, such as one ending in {@code /2/problems/resource-not-found}
 */
public record NotFound(String id, String detail, String title, String type) {}
