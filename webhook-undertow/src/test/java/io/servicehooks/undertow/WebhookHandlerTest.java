package io.servicehooks.undertow;

import static io.servicehooks.undertow.Http.envelope;
import static io.servicehooks.undertow.Http.hmac;
import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.WebhookConsumer;
import io.undertow.Handlers;
import io.undertow.Undertow;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class WebhookHandlerTest {

  private static final String SECRET = "consumer-secret";

  @Test
  void handler_mountedInUsersOwnUndertowAtAnyPath_answers() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets(SECRET).onAny(e -> seen.add(e.type())).build();
    Undertow undertow =
        Undertow.builder()
            .addHttpListener(0, "127.0.0.1")
            .setHandler(
                Handlers.path()
                    .addPrefixPath("/hello", exchange -> exchange.getResponseSender().send("hi"))
                    .addExactPath("/bots/acme/events", new WebhookHandler(consumer)))
            .build();
    undertow.start();
    try {
      int port = ((InetSocketAddress) undertow.getListenerInfo().get(0).getAddress()).getPort();
      URI uri = URI.create("http://127.0.0.1:" + port + "/bots/acme/events");
      assertThat(Http.get(URI.create(uri + "?crc_token=tok")).body()).contains(hmac(SECRET, "tok"));
      assertThat(Http.postSigned(uri, SECRET, envelope("1", "NewsNew")).statusCode())
          .isEqualTo(200);
      assertThat(seen).containsExactly("news.new");
    } finally {
      undertow.stop();
    }
  }

  @Test
  void server_withTlsFromKeyStore_servesHttps(@TempDir Path dir) throws Exception {
    Path keyStore = dir.resolve("server.p12");
    ProcessBuilder keytool =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=localhost",
                "-ext",
                "SAN=ip:127.0.0.1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                keyStore.toString(),
                "-storepass:env",
                "KS_PASSWORD")
            .redirectErrorStream(true);
    keytool.environment().put("KS_PASSWORD", "test-store-pass");
    Process p = keytool.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(new String(p.getInputStream().readAllBytes())).isZero();

    WebhookConsumer consumer = WebhookConsumer.builder().consumerSecrets(SECRET).build();
    try (WebhookServer server =
        WebhookServer.builder(consumer)
            .host("127.0.0.1")
            .port(0)
            .path("/hooks")
            .tls(keyStore, "test-store-pass".toCharArray())
            .build()
            .start()) {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(keyStore)) {
        trust.load(in, "test-store-pass".toCharArray());
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(null, tmf.getTrustManagers(), null);
      HttpClient client =
          HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(5)).build();
      HttpResponse<String> r =
          client.send(
              HttpRequest.newBuilder(
                      URI.create("https://127.0.0.1:" + server.port() + "/hooks?crc_token=abc"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).contains(hmac(SECRET, "abc"));
    }
  }

  @Test
  void builder_badValues_nameThem() {
    WebhookConsumer consumer = WebhookConsumer.builder().consumerSecrets(SECRET).build();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> WebhookServer.builder(consumer).port(70000))
        .hasMessageContaining("70000");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> WebhookServer.builder(consumer).path("webhooks"))
        .hasMessageContaining("webhooks");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> WebhookServer.builder(consumer).build().port())
        .isInstanceOf(IllegalStateException.class);
  }
}
