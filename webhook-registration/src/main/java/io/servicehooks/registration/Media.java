package io.servicehooks.registration;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A media item a lookup's answer included ({@code includes.media}), as {@link Post#media()} gives
 * it. Fields the query did not ask for ({@link MediaField}), or the platform did not send, are
 * {@code null}; fields the record does not know are kept in {@link #raw()}.
 *
 * @param mediaKey its key
 * @param type {@code photo}, {@code video} or {@code animated_gif}
 * @param url a photo's URL
 * @param previewImageUrl a video's or GIF's still image
 * @param width width in pixels
 * @param height height in pixels
 * @param durationMs a video's length in milliseconds
 * @param altText the description its author gave
 * @param viewCount its views ({@code public_metrics.view_count})
 * @param json the item's JSON as received
 */
public record Media(
    String mediaKey,
    String type,
    String url,
    String previewImageUrl,
    Integer width,
    Integer height,
    Long durationMs,
    String altText,
    Long viewCount,
    RawJson json) {

  /** The item's JSON as received, as a Jackson tree. */
  public JsonNode raw() {
    return json.tree();
  }
}
