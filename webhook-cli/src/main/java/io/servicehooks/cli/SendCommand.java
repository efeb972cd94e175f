package io.servicehooks.cli;

import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookSigner;
import io.servicehooks.registration.WebhookClient;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code servicehooks send URL --type TYPE}: plays the platform towards a consumer, like {@code
 * stripe trigger}: builds (or reads) a delivery body, signs it with the consumer secret and POSTs
 * it, printing the consumer's answer.
 */
@Command(
    name = "send",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Send a signed sample event to a consumer, as the platform would deliver it.",
      "The body is signed with $SERVICE_CONSUMER_SECRET in header x-service-webhooks-signature."
    })
final class SendCommand implements Callable<Integer> {

  @ParentCommand TopCommand top;

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "URL", description = "the consumer's webhook URL")
  String url;

  @Option(
      names = "--type",
      paramLabel = "TYPE",
      description =
          "event type of the sample, for example post.create, dm.received, follow.follow,"
              + " profile.update.bio, oauth.revoke")
  String type;

  @Option(
      names = "--body",
      paramLabel = "FILE",
      description = "send this file's bytes as they are instead of a sample")
  Path body;

  @Option(
      names = "--event-id",
      paramLabel = "ID",
      description =
          "use ID as the sample's event_uuid instead of a random one: sending twice with the same"
              + " ID rehearses a duplicate (the second answer says duplicate)")
  String eventId;

  @Override
  public Integer call() throws IOException {
    if (type == null && body == null) {
      throw new ParameterException(spec.commandLine(), "give --type TYPE, or --body FILE");
    }
    if (eventId != null && body != null) {
      throw new ParameterException(
          spec.commandLine(),
          "--event-id applies to a sample (--type); a --body file is sent as it is: put the id in"
              + " its event_uuid");
    }
    if (eventId != null && eventId.isBlank()) {
      throw new ParameterException(spec.commandLine(), "--event-id must not be blank");
    }
    WebhookClient.checkWebhookUrl(url, top.allowInsecureUrl);
    String secret = top.env("SERVICE_CONSUMER_SECRET");
    if (secret == null) {
      throw new ServicehooksCli.UsageException(
          "missing consumer secret: set SERVICE_CONSUMER_SECRET in the environment");
    }
    byte[] bytes;
    if (body != null) {
      try {
        bytes = Files.readAllBytes(body);
      } catch (NoSuchFileException e) {
        throw new ServicehooksCli.UsageException("no such file: " + body);
      }
    } else {
      if (!SampleEvents.isKnown(type)) {
        top.err()
            .println("note: no sample payload is known for " + type + "; sending an empty payload");
        top.err().flush();
      }
      bytes = SampleEvents.build(type, Clock.systemUTC().instant(), eventId);
    }
    HttpClient http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .header(WebhookRequest.SIGNATURE_HEADER, WebhookSigner.sign(secret, bytes))
            .header("User-Agent", "servicehooks-cli")
            .POST(HttpRequest.BodyPublishers.ofByteArray(bytes))
            .build();
    BoundedAnswer.Answer response;
    try {
      // the whole answer within the platform's 10 s, as the platform would wait
      response = BoundedAnswer.exchange(http, request, Duration.ofSeconds(10), 64 * 1024);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while sending");
    }
    top.output().sent(response.status(), response.text());
    boolean accepted = response.status() >= 200 && response.status() < 300;
    if (!accepted) {
      top.err()
          .println(
              "error: the consumer answered HTTP "
                  + response.status()
                  + "; the platform would retry, then drop the event");
      top.err().flush();
    }
    return accepted ? ServicehooksCli.EXIT_OK : ServicehooksCli.EXIT_API_ERROR;
  }
}
