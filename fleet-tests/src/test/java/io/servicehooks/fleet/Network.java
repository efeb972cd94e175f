package io.servicehooks.fleet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The fleet's network: one namespace per instance ({@code shf<s>-<n>}, {@code s} the {@link Slot}),
 * each with two veth pairs to the root namespace, every address in 10.x and every name under the
 * slot's prefix {@code shf<s>-}, so a crashed run's leftovers are found by name and removed at the
 * next start of the same slot, and another slot's fleet is never touched. Below, slot 1's
 * addresses.
 *
 * <ul>
 *   <li>The store link: the namespace's {@code st0} (10.233.16.(10+n)/24) paired with {@code
 *       shf1-<n>s}, a port of the bridge {@code shf1-br} (10.233.16.1/24) where the stores listen.
 *       A cut is {@code ip link set shf1-<n>s down}: packets are dropped, no reset is sent, as when
 *       a switch port or a security group goes.
 *   <li>The service link: {@code ht0} (10.234.n.2/30) paired with {@code shf1-<n>h}
 *       (10.234.n.1/30), where the test (the platform) reaches the instance's HTTP port. It is
 *       never cut, so a cut instance is still asked and must answer.
 * </ul>
 *
 * <p>Blackhole routes for the slot's two ranges (10.233.16.0/20 and 10.234.0.0/18) in the root
 * namespace and a blackhole default route in each namespace keep every packet on this machine.
 */
final class Network implements AutoCloseable {

  static final String PREFIX = Slot.PREFIX;
  static final String BRIDGE = PREFIX + "br";
  static final String STORE_HOST = Slot.storeNetwork() + ".1";
  private static final List<String> BLACKHOLES = List.of(Slot.ranges());

  private final List<Integer> namespaces = new ArrayList<>();

  private Network() {}

  /**
   * Why the fleet cannot run here, or empty when it can: it needs root, the {@code ip} command and
   * network namespaces.
   */
  static Optional<String> unavailable() {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      return Optional.of("not Linux");
    }
    if (!"root".equals(System.getProperty("user.name"))) {
      return Optional.of("not root (user " + System.getProperty("user.name") + ")");
    }
    try {
      Result r = run("ip", "netns", "list");
      if (r.status != 0) {
        return Optional.of("`ip netns list` failed: " + r.output.strip());
      }
    } catch (IOException e) {
      return Optional.of("no `ip` command: " + e.getMessage());
    }
    return Optional.empty();
  }

  /** Removes a crashed run's leftovers, then makes the bridge and the blackhole routes. */
  static Network create() throws IOException {
    removeLeftovers();
    Network net = new Network();
    must("ip", "link", "add", BRIDGE, "type", "bridge", "forward_delay", "0", "stp_state", "0");
    must("ip", "addr", "add", STORE_HOST + "/24", "dev", BRIDGE);
    must("ip", "link", "set", BRIDGE, "up");
    for (String range : BLACKHOLES) {
      must("ip", "route", "add", "blackhole", range);
    }
    return net;
  }

  /** Namespace {@code shf<slot>-<n>} with its two links; {@code n} from 1 to 63. */
  void addNamespace(int n) throws IOException {
    String ns = ns(n);
    must("ip", "netns", "add", ns);
    namespaces.add(n);
    must("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
    // store link, on the bridge
    must("ip", "link", "add", storePort(n), "type", "veth", "peer", "name", "st0", "netns", ns);
    must("ip", "link", "set", storePort(n), "master", BRIDGE);
    must("ip", "link", "set", storePort(n), "up");
    must("ip", "netns", "exec", ns, "ip", "addr", "add", address(n) + "/24", "dev", "st0");
    must("ip", "netns", "exec", ns, "ip", "link", "set", "st0", "up");
    // service link, point to point
    String h = PREFIX + n + "h";
    must("ip", "link", "add", h, "type", "veth", "peer", "name", "ht0", "netns", ns);
    must("ip", "addr", "add", hostAddress(n) + "/30", "dev", h);
    must("ip", "link", "set", h, "up");
    must("ip", "netns", "exec", ns, "ip", "addr", "add", serviceAddress(n) + "/30", "dev", "ht0");
    must("ip", "netns", "exec", ns, "ip", "link", "set", "ht0", "up");
    must("ip", "netns", "exec", ns, "ip", "route", "add", "blackhole", "default");
  }

  static String ns(int n) {
    return PREFIX + n;
  }

  /** The instance's address on the store link. */
  static String address(int n) {
    return Slot.storeNetwork() + "." + (10 + n);
  }

  /** Where the platform reaches instance {@code n}. */
  static String serviceAddress(int n) {
    return Slot.serviceNetwork(n) + ".2";
  }

  /** The root namespace's end of instance {@code n}'s service link, where it reaches the test. */
  static String hostAddress(int n) {
    return Slot.serviceNetwork(n) + ".1";
  }

  private static String storePort(int n) {
    return PREFIX + n + "s";
  }

  /** Cuts instance {@code n}'s link to the stores: its packets are dropped from now on. */
  void cut(int n) throws IOException {
    must("ip", "link", "set", storePort(n), "down");
  }

  /** Restores what {@link #cut} took. */
  void restore(int n) throws IOException {
    must("ip", "link", "set", storePort(n), "up");
  }

  @Override
  public void close() throws IOException {
    for (int n : namespaces) {
      killAll(ns(n));
      run("ip", "netns", "del", ns(n));
    }
    namespaces.clear();
    run("ip", "link", "del", BRIDGE);
    for (String range : BLACKHOLES) {
      run("ip", "route", "del", "blackhole", range);
    }
  }

  /**
   * Every namespace and link named {@code shf<s>-*}, and the slot's blackhole routes, from a
   * crashed run of this slot.
   */
  static void removeLeftovers() throws IOException {
    for (String line : run("ip", "netns", "list").output.split("\n")) {
      String name = line.strip().split(" ")[0];
      if (name.startsWith(PREFIX)) {
        killAll(name);
        run("ip", "netns", "del", name);
      }
    }
    for (String line : run("ip", "-o", "link", "show").output.split("\n")) {
      String[] parts = line.split(":\\s+");
      if (parts.length > 1) {
        String name = parts[1].split("@")[0];
        if (name.startsWith(PREFIX)) {
          run("ip", "link", "del", name);
        }
      }
    }
    for (String range : BLACKHOLES) {
      run("ip", "route", "del", "blackhole", range);
    }
  }

  private static void killAll(String ns) throws IOException {
    for (String pid : run("ip", "netns", "pids", ns).output.split("\\s+")) {
      if (!pid.isBlank()) {
        run("kill", "-9", pid.strip());
      }
    }
  }

  static void must(String... command) throws IOException {
    Result r = run(command);
    if (r.status != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + r.output.strip());
    }
  }

  static Result run(String... command) throws IOException {
    Path out = Files.createTempFile("shf-cmd", ".txt");
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not end within 30 s");
      }
      return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } finally {
      Files.deleteIfExists(out);
    }
  }

  record Result(int status, String output) {}
}
