package io.servicehooks.undertow;

import static io.servicehooks.undertow.Http.hmac;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.servicehooks.core.WebhookConsumer;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A bind failure names host and port; toString names where the server serves. */
final class WebhookServerNamingTest {

  private static final String SECRET = "a-consumer-secret-of-fifty-characters-0123456789ab";

  private final List<WebhookServer> servers = new ArrayList<>();

  private WebhookServer.Builder server() {
    WebhookServer.Builder b =
        WebhookServer.builder(WebhookConsumer.builder().consumerSecrets(SECRET).build());
    return b.host("127.0.0.1").ioThreads(1).workerThreads(1);
  }

  private WebhookServer track(WebhookServer server) {
    servers.add(server);
    return server;
  }

  @AfterEach
  void stop() {
    servers.forEach(WebhookServer::close);
  }

  @Test
  void start_portTaken_throwsNamingHostAndPort_firstServerStillAnswers() throws Exception {
    WebhookServer first = track(server().port(0).build().start());
    int taken = first.port();
    WebhookServer second = track(server().port(taken).build());

    assertThatThrownBy(second::start)
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("http://127.0.0.1:" + taken)
        .hasMessageContaining("cannot bind")
        .hasRootCauseInstanceOf(BindException.class)
        .message()
        .doesNotContain(SECRET);

    URI uri = URI.create("http://127.0.0.1:" + taken + "/webhooks?crc_token=abc");
    assertThat(Http.get(uri).body()).contains(hmac(SECRET, "abc"));
    assertThat(second.toString()).contains("port=" + taken).contains("state=not started");
  }

  @Test
  void start_afterBindFailure_canBeRetriedOnceThePortIsFree() throws Exception {
    WebhookServer first = server().port(0).build().start();
    int taken = first.port();
    WebhookServer second = track(server().port(taken).build());
    assertThatThrownBy(second::start).isInstanceOf(UncheckedIOException.class);

    first.close();
    second.start();
    assertThat(second.port()).isEqualTo(taken);
    URI uri = URI.create("http://127.0.0.1:" + taken + "/webhooks?crc_token=abc");
    assertThat(Http.get(uri).statusCode()).isEqualTo(200);
  }

  @Test
  void toString_namesSchemeHostBoundPortPathAndState_neverTheSecret() {
    WebhookServer server = server().port(0).path("/hooks").build();
    assertThat(server.toString())
        .isEqualTo(
            "WebhookServer[scheme=http, host=127.0.0.1, port=0, path=/hooks, state=not started]");

    track(server).start();
    int port = server.port();
    assertThat(port).isPositive();
    assertThat(server.toString())
        .isEqualTo(
            "WebhookServer[scheme=http, host=127.0.0.1, port="
                + port
                + ", path=/hooks, state=serving]")
        .doesNotContain(SECRET);

    server.close();
    assertThat(server.toString()).contains("port=" + port).endsWith("state=closed]");
    assertThat(server.port()).isEqualTo(port);
  }
}
