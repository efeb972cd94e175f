package io.servicehooks.benchmarks;

import io.servicehooks.core.WebhookSigner;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the load harness's pool of pre-signed deliveries: {@code count} complete HTTP/1.1
 * requests, each a 1.5 KB activity envelope with its own {@code event_uuid} and a correct
 * signature, so that wrk sends every delivery as a new event and spends no time signing.
 *
 * <p>File format, read by {@code benchmarks/load.lua}: one header line {@code servicehooks-pool
 * <count> <recordBytes>}, then {@code count} records of exactly {@code recordBytes} bytes each.
 *
 * <p>{@code java -cp benchmarks.jar io.servicehooks.benchmarks.PoolGenerator FILE COUNT HOST:PORT
 * PATH [SECRET]}
 */
public final class PoolGenerator {

  private PoolGenerator() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 4) {
      System.err.println("usage: PoolGenerator FILE COUNT HOST:PORT PATH [SECRET]");
      System.exit(2);
    }
    Path file = Path.of(args[0]);
    int count = Integer.parseInt(args[1]);
    String host = args[2];
    String path = args[3];
    String secret = args.length > 4 ? args[4] : Payloads.SECRET;
    long started = System.nanoTime();
    int recordBytes = -1;
    Path partial = file.resolveSibling(file.getFileName() + ".part");
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(partial), 1 << 20)) {
      for (int i = 0; i < count; i++) {
        byte[] record = request(host, path, secret, Payloads.envelope(Payloads.eventUuid(7, i)));
        if (i == 0) {
          recordBytes = record.length;
          out.write(
              ("servicehooks-pool " + count + " " + recordBytes + "\n")
                  .getBytes(StandardCharsets.US_ASCII));
        } else if (record.length != recordBytes) {
          throw new IllegalStateException(
              "record " + i + " is " + record.length + " bytes, not " + recordBytes);
        }
        out.write(record);
      }
    }
    Files.move(partial, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    System.out.printf(
        "wrote %,d deliveries of %d bytes to %s in %.1f s%n",
        count, recordBytes, file, (System.nanoTime() - started) / 1e9);
  }

  static byte[] request(String host, String path, String secret, byte[] body) {
    String head =
        "POST "
            + path
            + " HTTP/1.1\r\n"
            + "Host: "
            + host
            + "\r\n"
            + "Content-Type: application/json\r\n"
            + "x-service-webhooks-signature: "
            + WebhookSigner.sign(secret, body)
            + "\r\n"
            + "Content-Length: "
            + body.length
            + "\r\n"
            + "\r\n";
    byte[] h = head.getBytes(StandardCharsets.US_ASCII);
    byte[] record = new byte[h.length + body.length];
    System.arraycopy(h, 0, record, 0, h.length);
    System.arraycopy(body, 0, record, h.length, body.length);
    return record;
  }
}
