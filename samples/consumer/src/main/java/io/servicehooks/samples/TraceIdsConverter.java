package io.servicehooks.samples;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.util.Map;

/**
 * The consumer's log pattern word {@code %traceIds}: {@code " [traceId/spanId]"} for a line logged
 * inside a traced event (the MDC has both), nothing for every other line. It does what a {@code
 * %replace} of an empty {@code " [/]"} did, without a regular expression per line: the stream path
 * logs a line per event.
 */
public final class TraceIdsConverter extends ClassicConverter {

  /** Made by logback for each pattern that names {@code %traceIds}. */
  public TraceIdsConverter() {}

  @Override
  public String convert(ILoggingEvent event) {
    Map<String, String> mdc = event.getMDCPropertyMap();
    if (mdc == null || mdc.isEmpty()) {
      return "";
    }
    String trace = mdc.get("traceId");
    String span = mdc.get("spanId");
    if (trace == null && span == null) {
      return "";
    }
    return " [" + (trace == null ? "" : trace) + "/" + (span == null ? "" : span) + "]";
  }
}
