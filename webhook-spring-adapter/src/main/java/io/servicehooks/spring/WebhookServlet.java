package io.servicehooks.spring;

import io.servicehooks.core.AdapterSupport;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.web.util.ContentCachingRequestWrapper;
import org.springframework.web.util.WebUtils;

/**
 * Serves a {@link WebhookConsumer} as a plain servlet: it translates each request into a {@link
 * WebhookRequest} and copies the core's {@link WebhookResponse} back unchanged, so the endpoint
 * answers exactly as the core does.
 *
 * <p>It reads the raw body bytes itself, never past the consumer's size limit, instead of going
 * through Spring MVC's message converters, which would decode and re-encode the JSON and break the
 * signature. When a filter earlier in the chain already read the body through Spring's {@link
 * ContentCachingRequestWrapper}, the bytes it cached are used. A body that cannot be read to its
 * end is answered with {@link AdapterSupport#unreadableBody()} (400 {@code unreadable_body}) while
 * the connection can still carry an answer; the read's {@code IOException} never reaches the
 * container. Where the container has already taken the answer over (Tomcat), the {@link
 * UnreadableBodyErrorFilter} writes it on the error dispatch.
 */
final class WebhookServlet extends HttpServlet {

  private final transient Supplier<WebhookConsumer> consumerSupplier;
  private transient volatile WebhookConsumer consumer;

  /**
   * Takes a supplier so that the consumer (and the listener beans behind it) is created with the
   * other singletons rather than while the web server is being set up.
   */
  WebhookServlet(Supplier<WebhookConsumer> consumer) {
    this.consumerSupplier = consumer;
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    WebhookConsumer consumer = consumer();
    if (!"POST".equals(request.getMethod())) {
      // CRC checks and refused methods: the core answers without a body.
      write(
          response,
          consumer
              .handle(
                  new WebhookRequest(
                      request.getMethod(), request.getQueryString(), headers(request), null))
              .join());
      return;
    }
    AdapterSupport adapter = consumer.adapterSupport();
    int limit = adapter.maxBodyBytes();
    if (request.getContentLengthLong() > limit) {
      tooLarge(response, adapter);
      return;
    }
    byte[] body;
    try {
      body = request.getInputStream().readNBytes(limit + 1);
    } catch (IOException unreadable) {
      // A malformed chunk, a body shorter than its Content-Length, a reset or a read time-out: a
      // bad
      // request from the network, answered like any other, never thrown into the container.
      unreadableBody(request, response, adapter);
      return;
    }
    body = bodyCachedByFilter(request, body);
    if (body.length > limit) {
      tooLarge(response, adapter);
      return;
    }
    // In synchronous mode the listeners run here, on the container's thread, which may block. A
    // copy of an event still running elsewhere waits at most the consumer's inFlightWait: bounded.
    WebhookResponse answer =
        consumer
            .handle(new WebhookRequest("POST", request.getQueryString(), headers(request), body))
            .join();
    write(response, answer);
  }

  /**
   * A filter that read the body through a {@link ContentCachingRequestWrapper} leaves the stream
   * drained (or partly drained) but the bytes cached. Everything read since went through the same
   * wrapper, so its cache then holds the whole body and is longer than what was left to read here.
   */
  private static byte[] bodyCachedByFilter(HttpServletRequest request, byte[] read) {
    ContentCachingRequestWrapper caching =
        WebUtils.getNativeRequest(request, ContentCachingRequestWrapper.class);
    if (caching == null) {
      return read;
    }
    byte[] cached = caching.getContentAsByteArray();
    return cached.length > read.length ? cached : read;
  }

  /** The core reads one header, the signature; copying the others would only cost time. */
  private static Map<String, String> headers(HttpServletRequest request) {
    String signature = request.getHeader(WebhookRequest.SIGNATURE_HEADER);
    return signature == null ? Map.of() : Map.of(WebhookRequest.SIGNATURE_HEADER, signature);
  }

  private static void tooLarge(HttpServletResponse response, AdapterSupport adapter)
      throws IOException {
    // The rest of the body is never read.
    writeClosing(response, adapter.payloadTooLarge());
  }

  private static void unreadableBody(
      HttpServletRequest request, HttpServletResponse response, AdapterSupport adapter) {
    WebhookResponse answer = adapter.unreadableBody();
    if (response.isCommitted()) {
      // The container took the answer over (Tomcat calls sendError inside the failed read and
      // forwards to its error page once we return): the error dispatch writes ours instead.
      request.setAttribute(UnreadableBodyErrorFilter.ANSWER, answer);
      return;
    }
    try {
      writeClosing(response, answer);
    } catch (IOException clientGone) {
      // The connection cannot carry an answer any more; the refusal was already counted and logged.
    }
  }

  /** Writes an answer after which the connection must not carry another request. */
  static void writeClosing(HttpServletResponse response, WebhookResponse answer)
      throws IOException {
    // What is left of the body cannot be told from the next request: never reuse the connection.
    response.setHeader("Connection", "close");
    write(response, answer);
  }

  private static void write(HttpServletResponse response, WebhookResponse answer)
      throws IOException {
    response.setStatus(answer.status());
    answer.headers().forEach(response::setHeader);
    response.setContentLength(answer.body().length);
    response.getOutputStream().write(answer.body());
  }

  private WebhookConsumer consumer() {
    WebhookConsumer current = consumer;
    if (current == null) {
      current = consumerSupplier.get();
      consumer = current;
    }
    return current;
  }

  @Override
  public String toString() {
    return "WebhookServlet";
  }
}
