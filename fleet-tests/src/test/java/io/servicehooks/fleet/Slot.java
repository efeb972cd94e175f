package io.servicehooks.fleet;

import java.nio.file.Path;

/**
 * Which of the machine's fleets this JVM runs. Failsafe runs the fleet classes in two forks at
 * once, each given its fork number as {@code fleet.slot} (1 when unset, as when a class is run
 * alone), and every name, address, port and file a fleet makes comes from here, so two slots never
 * share one and neither's set-up or clean-up can reach the other's:
 *
 * <table>
 *   <caption>What slot {@code s} (1 to 4) owns</caption>
 *   <tr><td>names</td><td>{@code shf<s>-*}: namespaces, links, the bridge</td></tr>
 *   <tr><td>store network</td><td>10.233.(16s).0/20: the bridge at .1, instance {@code n} at
 *       .(10+n)</td></tr>
 *   <tr><td>service links</td><td>10.234.(64(s-1)).0/18: instance {@code n}'s /30 in
 *       10.234.(64(s-1)+n).0, {@code n} from 1 to 63</td></tr>
 *   <tr><td>ports</td><td>the base port plus 100(s-1): Redis 16379, PostgreSQL 15432, Kafka
 *       19092</td></tr>
 *   <tr><td>files</td><td>{@code /tmp/shf<s>-run}, and the lock {@code /tmp/shf<s>.lock}</td></tr>
 * </table>
 *
 * <p>Each of those ranges is blackholed as a whole by the slot's {@link Network}, so what its fleet
 * sends stays on this machine.
 */
final class Slot {

  /** The highest slot: four fleets at once is already more than two cores carry. */
  static final int MAX = 4;

  /** This JVM's slot. */
  static final int NUMBER = number(System.getProperty("fleet.slot", "1"));

  /** The prefix of every namespace and link this slot makes. */
  static final String PREFIX = "shf" + NUMBER + "-";

  /** Where this slot's stores keep their files. */
  static final Path DIR = Path.of("/tmp/shf" + NUMBER + "-run");

  /** Held while this slot's fleet exists: one fleet per slot per machine. */
  static final Path LOCK = Path.of("/tmp/shf" + NUMBER + ".lock");

  private Slot() {}

  /** {@code base} moved into this slot's ports. */
  static int port(int base) {
    return base + 100 * (NUMBER - 1);
  }

  /** The first three octets of this slot's store network, whose /20 it owns. */
  static String storeNetwork() {
    return "10.233." + (16 * NUMBER);
  }

  /** The first three octets of instance {@code n}'s service link, a /30 in the slot's /18. */
  static String serviceNetwork(int n) {
    if (n < 1 || n > 63) {
      throw new IllegalArgumentException("instance " + n + " is outside 1 to 63");
    }
    return serviceBlock(n);
  }

  /** The ranges this slot's addresses come from. */
  static String[] ranges() {
    return new String[] {storeNetwork() + ".0/20", serviceBlock(0) + ".0/18"};
  }

  private static String serviceBlock(int offset) {
    return "10.234." + (64 * (NUMBER - 1) + offset);
  }

  private static int number(String value) {
    try {
      int n = Integer.parseInt(value.strip());
      if (n >= 1 && n <= MAX) {
        return n;
      }
    } catch (NumberFormatException e) {
      // falls through to the one message below
    }
    throw new IllegalStateException("fleet.slot must be 1 to " + MAX + ", not '" + value + "'");
  }
}
