package io.servicehooks.registration;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a post lookup asks the platform to send besides each post's {@code id} and {@code text}: the
 * fields of posts, users and media, and the expansions that add related objects under {@code
 * includes}. Immutable: each method returns a new query with the names added (in order, each once).
 *
 * <pre>{@code
 * PostQuery query = PostQuery.none()
 *     .postFields(PostField.AUTHOR_ID, PostField.CREATED_AT, PostField.ATTACHMENTS)
 *     .userFields(UserField.USERNAME)
 *     .mediaFields(MediaField.URL, MediaField.ALT_TEXT)
 *     .expansions(Expansion.AUTHOR_ID, Expansion.ATTACHMENTS_MEDIA_KEYS);
 * }</pre>
 *
 * The typed constants are the names docs/protocol.md lists; the {@code raw*} forms take names the
 * platform added later, checked only for their characters (letters, digits, {@code _} and {@code
 * .}): the platform refuses an unknown one with a 400 naming it.
 */
public final class PostQuery {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.]{1,64}");
  private static final PostQuery NONE = new PostQuery(Set.of(), Set.of(), Set.of(), Set.of());

  private final Set<String> postFields;
  private final Set<String> userFields;
  private final Set<String> mediaFields;
  private final Set<String> expansions;

  private PostQuery(
      Set<String> postFields,
      Set<String> userFields,
      Set<String> mediaFields,
      Set<String> expansions) {
    this.postFields = postFields;
    this.userFields = userFields;
    this.mediaFields = mediaFields;
    this.expansions = expansions;
  }

  /** Nothing beyond {@code id} and {@code text}, and no {@code includes}. */
  public static PostQuery none() {
    return NONE;
  }

  /** This query with these post fields added. */
  public PostQuery postFields(PostField... fields) {
    return rawPostFields(names(fields, PostField::wireName));
  }

  /** This query with these user fields added. */
  public PostQuery userFields(UserField... fields) {
    return rawUserFields(names(fields, UserField::wireName));
  }

  /** This query with these media fields added. */
  public PostQuery mediaFields(MediaField... fields) {
    return rawMediaFields(names(fields, MediaField::wireName));
  }

  /** This query with these expansions added. */
  public PostQuery expansions(Expansion... expansions) {
    return rawExpansions(names(expansions, Expansion::wireName));
  }

  /**
   * This query with post fields added by their platform names, for names newer than {@link
   * PostField}.
   *
   * @throws IllegalArgumentException for a name with other characters than letters, digits, {@code
   *     _} and {@code .}
   */
  public PostQuery rawPostFields(String... names) {
    return new PostQuery(added(postFields, names), userFields, mediaFields, expansions);
  }

  /** This query with user fields added by their platform names; see {@link #rawPostFields}. */
  public PostQuery rawUserFields(String... names) {
    return new PostQuery(postFields, added(userFields, names), mediaFields, expansions);
  }

  /** This query with media fields added by their platform names; see {@link #rawPostFields}. */
  public PostQuery rawMediaFields(String... names) {
    return new PostQuery(postFields, userFields, added(mediaFields, names), expansions);
  }

  /** This query with expansions added by their platform names; see {@link #rawPostFields}. */
  public PostQuery rawExpansions(String... names) {
    return new PostQuery(postFields, userFields, mediaFields, added(expansions, names));
  }

  /** The post fields asked for, in order. */
  public List<String> postFieldNames() {
    return List.copyOf(postFields);
  }

  /** The user fields asked for, in order. */
  public List<String> userFieldNames() {
    return List.copyOf(userFields);
  }

  /** The media fields asked for, in order. */
  public List<String> mediaFieldNames() {
    return List.copyOf(mediaFields);
  }

  /** The expansions asked for, in order. */
  public List<String> expansionNames() {
    return List.copyOf(expansions);
  }

  /**
   * The query parameters, each {@code name=a,b} joined by {@code &}, without a leading separator;
   * empty for {@link #none()}.
   */
  String queryString() {
    List<String> parts = new ArrayList<>(4);
    param(parts, "post.fields", postFields);
    param(parts, "user.fields", userFields);
    param(parts, "media.fields", mediaFields);
    param(parts, "expansions", expansions);
    return String.join("&", parts);
  }

  private static void param(List<String> parts, String name, Set<String> values) {
    if (!values.isEmpty()) {
      // the names hold only [A-Za-z0-9_.]: nothing to encode but the commas between them
      parts.add(name + "=" + URLEncoder.encode(String.join(",", values), StandardCharsets.UTF_8));
    }
  }

  private static <E> String[] names(E[] values, java.util.function.Function<E, String> name) {
    Objects.requireNonNull(values, "values");
    String[] names = new String[values.length];
    for (int i = 0; i < values.length; i++) {
      names[i] = name.apply(Objects.requireNonNull(values[i], "a field or expansion is null"));
    }
    return names;
  }

  private static Set<String> added(Set<String> current, String[] names) {
    Objects.requireNonNull(names, "names");
    Set<String> result = new LinkedHashSet<>(current);
    for (String name : names) {
      if (name == null || !NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "a field or expansion name holds letters, digits, '_' and '.' only, was: "
                + (name == null ? "null" : io.servicehooks.core.internal.LogText.of(name)));
      }
      result.add(name);
    }
    return Collections.unmodifiableSet(result);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof PostQuery that
        && List.copyOf(postFields).equals(List.copyOf(that.postFields))
        && List.copyOf(userFields).equals(List.copyOf(that.userFields))
        && List.copyOf(mediaFields).equals(List.copyOf(that.mediaFields))
        && List.copyOf(expansions).equals(List.copyOf(that.expansions));
  }

  @Override
  public int hashCode() {
    return Objects.hash(List.copyOf(postFields), List.copyOf(expansions));
  }

  @Override
  public String toString() {
    String query = queryString();
    return "PostQuery["
        + (query.isEmpty() ? "none" : java.net.URLDecoder.decode(query, StandardCharsets.UTF_8))
        + "]";
  }
}
