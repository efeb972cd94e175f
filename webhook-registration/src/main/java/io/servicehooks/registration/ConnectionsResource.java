package io.servicehooks.registration;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.List;

/**
 * The activity-stream calls of {@link WebhookClient}: list and end connections ({@code
 * /2/connections}) and open the stream itself ({@code GET /2/activity/stream}).
 */
final class ConnectionsResource {

  private final ApiCaller api;

  ConnectionsResource(ApiCaller api) {
    this.api = api;
  }

  List<StreamConnection> list() throws IOException {
    return Responses.connections(api.call("GET", "/2/connections", null, ApiCaller.Repeat.SAFE));
  }

  int kill(String endpointId) throws IOException {
    String path = "/2/connections/" + WebhookUrls.checkEndpointId(endpointId);
    return Responses.killed(api.call("DELETE", path, null, ApiCaller.Repeat.SAFE), 1);
  }

  int killAll() throws IOException {
    return Responses.killed(
        api.call("DELETE", "/2/connections/all", null, ApiCaller.Repeat.SAFE), -1);
  }

  HttpResponse<InputStream> openActivityStream(int backfillMinutes) throws IOException {
    if (backfillMinutes < 0 || backfillMinutes > 5) {
      throw new IllegalArgumentException(
          "backfillMinutes must be between 0 and 5, was " + backfillMinutes);
    }
    return api.open(
        "/2/activity/stream" + (backfillMinutes > 0 ? "?backfill_minutes=" + backfillMinutes : ""));
  }
}
