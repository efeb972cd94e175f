package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.testsupport.RawHttpServer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A consumer that sends its answer's headers and then stops part-way through the body: the
 * simulator's CRC time-out bounds the whole answer, so the check fails in time instead of waiting
 * for ever.
 */
final class StalledConsumerTest {

  @Test
  void crcAnswerStopsAfter5Of200Bytes_crcValidationFailsWithinTheTimeOut() throws Exception {
    try (RawHttpServer consumer =
            RawHttpServer.start(
                (request, out) ->
                    out.write(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                + "Content-Length: 200\r\n\r\n{\"res")
                        .hold());
        PlatformSimulator simulator =
            PlatformSimulator.builder()
                .localMode(true)
                .crcTimeout(Duration.ofMillis(500))
                .build()
                .start()) {
      PlatformClient client = new PlatformClient(simulator);

      HttpResponse<String> response =
          CompletableFuture.supplyAsync(
                  () -> client.createWebhook(consumer.baseUrl() + "/webhooks"))
              .get(20, TimeUnit.SECONDS);

      assertThat(response.body()).contains("CrcValidationFailed").contains("500 ms");
    }
  }
}
