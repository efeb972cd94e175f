package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * A body the servlet cannot read to its end, over a real Tomcat: the client speaks raw HTTP on a
 * socket, since a well-behaved client never sends such a body. No filter reads the body first, so
 * the failure reaches the servlet's own read.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebhookServletReadFailureTest.App.class,
    properties = {
      "servicehooks.webhook.consumer-secrets=test-consumer-secret",
      "spring.main.banner-mode=off"
    })
final class WebhookServletReadFailureTest {

  private static final String SIGNATURE = "sha256=YWHphPn/JFq43jkF0y4/w8R/SelmLjvpunhVFY8JhlI=";

  @LocalServerPort int port;
  @Autowired WebhookConsumer consumer;

  @Test
  void delivery_malformedChunk_answers400UnreadableBody() throws IOException {
    String request =
        head("Transfer-Encoding: chunked\r\n")
            // A chunk size must be hexadecimal: Tomcat's chunked decoder fails the servlet's read.
            + "zz\r\n{\"data\":{}}\r\n0\r\n\r\n";
    RawResponse response = exchange(request, false);
    assertUnreadableBody(response);
  }

  @Test
  void delivery_bodyShorterThanContentLength_answers400UnreadableBody() throws IOException {
    // Declares 100 bytes, sends 11 and half-closes: the servlet's read meets the end of the stream
    // while the connection can still carry the answer back.
    String request = head("Content-Length: 100\r\n") + "{\"data\":{}}";
    RawResponse response = exchange(request, true);
    assertUnreadableBody(response);
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private void assertUnreadableBody(RawResponse response) {
    WebhookResponse core = consumer.adapterSupport().unreadableBody();
    assertThat(response.statusLine()).startsWith("HTTP/1.1 400");
    assertThat(response.body()).contains("\"error\":\"unreadable_body\"");
    assertThat(response.body()).isEqualTo(core.bodyAsString());
    assertThat(response.head()).containsIgnoringCase("Content-Type: " + core.contentType());
    assertThat(response.head()).containsIgnoringCase("Connection: close");
  }

  private static String head(String framing) {
    return "POST /webhooks HTTP/1.1\r\n"
        + "Host: 127.0.0.1\r\n"
        + "Content-Type: application/json\r\n"
        + WebhookRequest.SIGNATURE_HEADER
        + ": "
        + SIGNATURE
        + "\r\n"
        + framing
        + "\r\n";
  }

  private RawResponse exchange(String request, boolean halfClose) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      if (halfClose) {
        socket.shutdownOutput();
      }
      // The answer closes the connection, so the whole of it is everything until the end.
      String raw = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int end = raw.indexOf("\r\n\r\n");
      assertThat(end).as(raw).isPositive();
      String head = raw.substring(0, end);
      return new RawResponse(head.lines().findFirst().orElse(""), head, raw.substring(end + 4));
    }
  }

  private record RawResponse(String statusLine, String head, String body) {}

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
      // The README's line for secured applications: Spring Security is on this test class path.
      http.csrf(csrf -> csrf.ignoringRequestMatchers("/webhooks"))
          .authorizeHttpRequests(
              requests ->
                  requests.requestMatchers("/webhooks").permitAll().anyRequest().authenticated());
      return http.build();
    }
  }
}
