package io.servicehooks.undertow;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for requests no well-behaved client sends (a body cut short). Sends
 * the request, closes the sending side as a client that gives up does (it can still read), and
 * reads one response whose length is given by {@code Content-Length}.
 */
final class RawHttp {

  /** One response: status, headers by lower-case name, body. */
  record Response(int status, Map<String, String> headers, String body) {}

  private RawHttp() {}

  static Response exchange(int port, String request) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      socket.shutdownOutput();
      InputStream in = socket.getInputStream();
      String statusLine = line(in);
      Map<String, String> headers = new LinkedHashMap<>();
      for (String header = line(in); !header.isEmpty(); header = line(in)) {
        int colon = header.indexOf(':');
        headers.put(
            header.substring(0, colon).trim().toLowerCase(Locale.ROOT),
            header.substring(colon + 1).trim());
      }
      int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
      String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
      return new Response(Integer.parseInt(statusLine.split(" ")[1]), headers, body);
    }
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("connection closed mid-line after: " + line);
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }
}
