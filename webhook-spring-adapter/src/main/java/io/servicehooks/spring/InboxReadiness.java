package io.servicehooks.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;

/**
 * Durable mode: puts the {@code webhookInbox} health in Boot's {@code readiness} group (when the
 * application has one: Kubernetes, or {@code management.endpoint.health.probes.enabled=true}). An
 * instance whose inbox database does not answer can store nothing and answers every delivery 503;
 * unready, the load balancer sends the deliveries to an instance that can. Liveness stays as Boot
 * has it: restarting does not bring a database back. {@code
 * servicehooks.webhook.inbox.readiness=false} leaves the group alone.
 */
final class InboxReadiness implements HealthEndpointGroupsPostProcessor {

  static final String GROUP = "readiness";
  static final String MEMBER = "webhookInbox";

  private final String member;

  /** The {@code webhookInbox} health in the readiness group. */
  InboxReadiness() {
    this(MEMBER);
  }

  /** The health contributor named {@code member} in the readiness group (the Kafka brokers'). */
  InboxReadiness(String member) {
    this.member = member;
  }

  @Override
  public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
    HealthEndpointGroup readiness = groups.get(GROUP);
    if (readiness == null || readiness.isMember(member)) {
      return groups;
    }
    Map<String, HealthEndpointGroup> named = new LinkedHashMap<>();
    for (String name : groups.getNames()) {
      named.put(name, groups.get(name));
    }
    named.put(GROUP, new WithInbox(readiness, member));
    return HealthEndpointGroups.of(groups.getPrimary(), named);
  }

  /** The readiness group, with the inbox as a member too. */
  private record WithInbox(HealthEndpointGroup group, String member)
      implements HealthEndpointGroup {

    @Override
    public boolean isMember(String name) {
      return member.equals(name) || group.isMember(name);
    }

    @Override
    public boolean showComponents(SecurityContext securityContext) {
      return group.showComponents(securityContext);
    }

    @Override
    public boolean showDetails(SecurityContext securityContext) {
      return group.showDetails(securityContext);
    }

    @Override
    public StatusAggregator getStatusAggregator() {
      return group.getStatusAggregator();
    }

    @Override
    public HttpCodeStatusMapper getHttpCodeStatusMapper() {
      return group.getHttpCodeStatusMapper();
    }

    @Override
    public AdditionalHealthEndpointPath getAdditionalPath() {
      return group.getAdditionalPath();
    }
  }
}
