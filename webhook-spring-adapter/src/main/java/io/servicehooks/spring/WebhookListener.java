package io.servicehooks.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

/**
 * Marks a method of a Spring bean as a listener for webhook events, so that the auto-configured
 * {@link io.servicehooks.core.WebhookConsumer} routes events to it:
 *
 * <pre>{@code
 * @Component
 * class Greeter {
 *     @WebhookListener("post.create")
 *     void onPost(Post post) { ... }                       // payload mapped to your own type
 *
 *     @WebhookListener({"profile.update.*", "follow.follow"})
 *     void onProfileOrFollow(WebhookEvent event) { ... }   // the whole event
 * }
 * }</pre>
 *
 * <p>Each value is an exact type ({@code post.create}; a legacy name such as {@code
 * ProfileBioUpdate} is read as its current name), a prefix wildcard ({@code profile.update.*}) or
 * {@code *} for every event; no value at all also means every event. The method takes exactly one
 * parameter: the {@link io.servicehooks.core.WebhookEvent}, or any other type, which receives the
 * payload mapped with {@link io.servicehooks.core.WebhookEvent#payloadAs(Class)}. Its return value
 * is ignored; an exception it throws fails the event (the delivery is answered 500 and the platform
 * retries). A method that does not fit fails the application's start-up with a message naming it.
 *
 * <p>On a class that implements {@link io.servicehooks.core.WebhookListener}, the annotation
 * narrows the types that bean receives (without it, such a bean receives every event).
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface WebhookListener {

  /** The event types or patterns; empty means every event. Alias of {@link #types()}. */
  @AliasFor("types")
  String[] value() default {};

  /** The event types or patterns; empty means every event. Alias of {@link #value()}. */
  @AliasFor("value")
  String[] types() default {};
}
