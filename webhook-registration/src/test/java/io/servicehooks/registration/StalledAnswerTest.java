package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.testsupport.RawHttpServer;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Answers that send their headers and then stop part-way through the body: the request time-out
 * bounds the whole answer, so every call ends with the usual time-out failure instead of waiting
 * for ever.
 */
final class StalledAnswerTest {

  /** Far above the 1 s request time-out, so a loaded machine still passes. */
  private static final long BOUND_SECONDS = 20;

  private final List<AutoCloseable> open = new ArrayList<>();
  private final ExecutorService callers = Executors.newCachedThreadPool();

  @AfterEach
  void closeAll() throws Exception {
    callers.shutdownNow();
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private RawHttpServer server(RawHttpServer.Script script) {
    RawHttpServer server = RawHttpServer.start(script);
    open.add(server);
    return server;
  }

  private static WebhookClient.Builder client(RawHttpServer server) {
    return WebhookClient.builder()
        .baseUrl(server.baseUrl())
        .requestTimeout(Duration.ofSeconds(1))
        .sleeper(wait -> {});
  }

  /** Sends 5 of the 200 body bytes it announces, then nothing. */
  private static void fiveOf200(RawHttpServer.Connection out) throws Exception {
    out.write(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n"
                + "{\"tok")
        .hold();
  }

  private <T> Throwable failureOf(Callable<T> call) throws Exception {
    Future<T> result = callers.submit(call);
    try {
      result.get(BOUND_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("the call succeeded");
  }

  @Test
  void list_tokenAnswerStopsAfter5Of200Bytes_failsWithATimeOut() throws Exception {
    RawHttpServer server = server((request, out) -> fiveOf200(out));
    WebhookClient client = client(server).apiCredentials("key", "secret").build();

    assertThat(failureOf(client::list))
        .isInstanceOf(HttpTimeoutException.class)
        .hasMessageContaining("POST /oauth2/token")
        .hasMessageContaining("1000 ms");
    // The connection was given up, not left open.
    await()
        .atMost(Duration.ofSeconds(BOUND_SECONDS))
        .until(() -> server.connections().get(0).closedByPeer());
  }

  @Test
  void list_answerBodyStopsHalfWay_failsWithATimeOut() throws Exception {
    RawHttpServer server = server((request, out) -> fiveOf200(out));
    WebhookClient client = client(server).bearerToken("AAAA").build();

    assertThat(failureOf(client::list))
        .isInstanceOf(HttpTimeoutException.class)
        .hasMessageContaining("GET /2/webhooks");
  }

  @Test
  void tokenFetchStalled_everyCallerEndsAfterOneFetch_noneWaitsOnTheOthers() throws Exception {
    RawHttpServer server = server((request, out) -> fiveOf200(out));
    WebhookClient client = client(server).apiCredentials("key", "secret").build();

    List<Future<?>> calls = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      calls.add(callers.submit(client::list));
    }
    for (Future<?> call : calls) {
      try {
        call.get(BOUND_SECONDS, TimeUnit.SECONDS);
        throw new AssertionError("the call succeeded");
      } catch (ExecutionException e) {
        assertThat(e.getCause()).isInstanceOf(HttpTimeoutException.class);
      }
    }
    // The callers shared fetches: never more token requests than callers.
    assertThat(server.requests()).hasSizeLessThanOrEqualTo(4).allMatch(r -> r.contains("/oauth2"));
  }

  @Test
  void openActivityStream_503WhoseBodyNeverComes_answersTheStatusWithinTheTimeOut()
      throws Exception {
    RawHttpServer server =
        server(
            (request, out) ->
                out.write(
                        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 1000\r\n\r\n")
                    .hold());
    WebhookClient client = client(server).bearerToken("AAAA").build();

    String answer = callers.submit(() -> opened(client)).get(BOUND_SECONDS, TimeUnit.SECONDS);

    assertThat(answer).isEqualTo("503 ");
  }

  @Test
  void openActivityStream_errorBodyPartlySent_keepsWhatArrived() throws Exception {
    RawHttpServer server =
        server(
            (request, out) ->
                out.write(
                        "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 1000\r\n\r\n{\"title\":\"Forbidden\"")
                    .hold());
    WebhookClient client = client(server).bearerToken("AAAA").build();

    String answer = callers.submit(() -> opened(client)).get(BOUND_SECONDS, TimeUnit.SECONDS);

    assertThat(answer).isEqualTo("403 {\"title\":\"Forbidden\"");
  }

  /** The status and the error body of an open, as the stream reads them. */
  private static String opened(WebhookClient client) throws Exception {
    HttpResponse<InputStream> response = client.openActivityStream(5);
    try (InputStream body = response.body()) {
      return response.statusCode() + " " + new String(body.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
