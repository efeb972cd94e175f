package io.servicehooks.registration;

/**
 * The fields of a media item a lookup may ask for ({@code media.fields}) for the media it expands
 * ({@link Expansion#ATTACHMENTS_MEDIA_KEYS}); a name the platform added later goes through {@link
 * PostQuery#rawMediaFields(String...)}.
 */
public enum MediaField {
  /** The media's key (always sent). */
  MEDIA_KEY("media_key"),

  /** {@code photo}, {@code video} or {@code animated_gif} (always sent). */
  TYPE("type"),

  /** A video's length in milliseconds. */
  DURATION_MS("duration_ms"),

  /** Its public counts ({@code view_count}). */
  PUBLIC_METRICS("public_metrics"),

  /** A photo's URL. */
  URL("url"),

  /** A video's or GIF's still image. */
  PREVIEW_IMAGE_URL("preview_image_url"),

  /** Width in pixels. */
  WIDTH("width"),

  /** Height in pixels. */
  HEIGHT("height"),

  /** The description its author gave for people who cannot see it. */
  ALT_TEXT("alt_text");

  private final String wireName;

  MediaField(String wireName) {
    this.wireName = wireName;
  }

  /** The name the platform knows, such as {@code preview_image_url}. */
  public String wireName() {
    return wireName;
  }
}
