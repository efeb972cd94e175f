package io.servicehooks.benchmarks;

import io.servicehooks.core.WebhookSigner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends an exact number of signed deliveries, the load harness's 1.5 KB envelopes with event ids
 * {@code first .. first+count-1} (seed 9, so never the pool's), from a fixed pool of {@code
 * concurrency} client threads, and prints how they were answered: {@code status=200 body=accepted
 * n}. Sending the same range twice gives {@code count} new events, then {@code count} duplicates;
 * {@code benchmarks/redis-roundtrips.sh} counts the Redis commands each costs.
 *
 * <p>{@code java -cp benchmarks.jar io.servicehooks.benchmarks.SendDeliveries URL FIRST COUNT
 * CONCURRENCY [SECRET]}
 */
public final class SendDeliveries {

  private SendDeliveries() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: SendDeliveries URL FIRST COUNT CONCURRENCY [SECRET]");
      System.exit(2);
    }
    URI url = URI.create(args[0]);
    long first = Long.parseLong(args[1]);
    int count = Integer.parseInt(args[2]);
    int concurrency = Integer.parseInt(args[3]);
    String secret = args.length > 4 ? args[4] : Payloads.SECRET;
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    Map<String, AtomicInteger> answers = new TreeMap<>();
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(concurrency);
    Future<?>[] workers = new Future<?>[concurrency];
    for (int w = 0; w < concurrency; w++) {
      workers[w] =
          pool.submit(
              () -> {
                for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                  byte[] body = Payloads.envelope(Payloads.eventUuid(9, first + i));
                  HttpRequest request =
                      HttpRequest.newBuilder(url)
                          .timeout(Duration.ofSeconds(10))
                          .header("Content-Type", "application/json")
                          .header("x-service-webhooks-signature", WebhookSigner.sign(secret, body))
                          .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                          .build();
                  HttpResponse<String> response =
                      client.send(request, HttpResponse.BodyHandlers.ofString());
                  String kind =
                      response.body().contains("\"duplicate\"")
                          ? "duplicate"
                          : response.body().contains("\"accepted\"") ? "accepted" : "other";
                  String key = "status=" + response.statusCode() + " body=" + kind;
                  synchronized (answers) {
                    answers.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                  }
                }
                return null;
              });
    }
    for (Future<?> worker : workers) {
      worker.get();
    }
    pool.shutdown();
    answers.forEach((k, v) -> System.out.println(k + " " + v.get()));
  }
}
