package io.servicehooks.spring;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.core.WebhookListener;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

/**
 * Marks a method of a Spring bean as a listener for webhook events, so that the auto-configured
 * {@link WebhookConsumer} routes events to it, as {@link WebhookConsumer.Builder#on} would:
 *
 * <pre>{@code
 * @Component
 * class Greeter {
 *     @OnWebhookEvent("post.create")
 *     void onPost(Post post) { ... }                       // payload mapped to your own type
 *
 *     @OnWebhookEvent({"profile.update.*", "follow.follow"})
 *     void onProfileOrFollow(WebhookEvent event) { ... }   // the whole event
 * }
 * }</pre>
 *
 * <p>Each value is an exact type ({@code post.create}; a legacy name such as {@code
 * ProfileBioUpdate} is read as its current name), a prefix wildcard ({@code profile.update.*}) or
 * {@code *} for every event; no value at all also means every event. The method takes exactly one
 * parameter: the {@link WebhookEvent}, or any other type, which receives the payload mapped with
 * {@link WebhookEvent#payloadAs(Class)}. Its return value is ignored; an exception it throws fails
 * the event (the delivery is answered 500 and the platform retries). A method that does not fit
 * fails the application's start-up with a message naming it.
 *
 * <p>On a bean class that implements the core {@link WebhookListener} interface, the annotation
 * narrows the types that bean receives (without it, such a bean receives every event).
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface OnWebhookEvent {

  /** The event types or patterns; empty means every event. Alias of {@link #types()}. */
  @AliasFor("types")
  String[] value() default {};

  /** The event types or patterns; empty means every event. Alias of {@link #value()}. */
  @AliasFor("value")
  String[] types() default {};
}
