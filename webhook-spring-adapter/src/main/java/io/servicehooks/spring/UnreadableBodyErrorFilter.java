package io.servicehooks.spring;

import io.servicehooks.core.AdapterSupport;
import io.servicehooks.core.WebhookResponse;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Puts the core's {@link AdapterSupport#unreadableBody()} answer on the container's error dispatch
 * for a webhook body that could not be read.
 *
 * <p>Tomcat answers a failed body read itself: inside the read it calls {@code sendError(400)} (408
 * for a time-out), which suspends the application's output, and once the servlet returns it
 * forwards to the error page ({@code /error} in Spring Boot) instead. The {@link WebhookServlet}
 * leaves its answer in a request attribute; this filter, mapped to every error dispatch ahead of
 * any other filter (Spring Security's included), writes it there in place of the error page. Every
 * other error dispatch passes through untouched.
 */
final class UnreadableBodyErrorFilter implements Filter {

  /** The request attribute that carries the answer from the servlet to the error dispatch. */
  static final String ANSWER = UnreadableBodyErrorFilter.class.getName() + ".answer";

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (request.getAttribute(ANSWER) instanceof WebhookResponse answer
        && response instanceof HttpServletResponse http
        && !http.isCommitted()) {
      request.removeAttribute(ANSWER);
      http.resetBuffer();
      WebhookServlet.writeClosing(http, answer);
      return;
    }
    chain.doFilter(request, response);
  }

  @Override
  public String toString() {
    return "UnreadableBodyErrorFilter";
  }
}
