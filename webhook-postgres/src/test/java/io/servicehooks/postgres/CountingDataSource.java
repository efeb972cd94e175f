package io.servicehooks.postgres;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource that counts what reaches the database through it: connections taken (in all, and by
 * the inbox's poller thread), statements executed (and, for prepared statements, the SQL of each
 * execution), and transactions (an explicit commit, or a statement run in auto-commit mode, which
 * PostgreSQL commits on its own).
 */
final class CountingDataSource implements DataSource {

  final AtomicInteger connections = new AtomicInteger();

  /** Connections taken by the inbox's poller thread alone. */
  final AtomicInteger pollerConnections = new AtomicInteger();

  final AtomicInteger statements = new AtomicInteger();
  final AtomicInteger transactions = new AtomicInteger();
  private final Queue<String> executed = new ConcurrentLinkedQueue<>();

  /** Called with a prepared statement's SQL before it executes, on the executing thread. */
  volatile Consumer<String> beforeExecute = sql -> {};

  private final DataSource target;

  CountingDataSource(DataSource target) {
    this.target = target;
  }

  @Override
  public Connection getConnection() throws SQLException {
    countConnection();
    return wrap(target.getConnection());
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    countConnection();
    return wrap(target.getConnection(user, password));
  }

  private void countConnection() {
    connections.incrementAndGet();
    if (Thread.currentThread().getName().endsWith("-poller")) {
      pollerConnections.incrementAndGet();
    }
  }

  private Connection wrap(Connection c) {
    InvocationHandler h =
        (proxy, method, args) -> {
          Object result = invoke(c, method, args);
          if (method.getName().equals("commit")) {
            transactions.incrementAndGet();
          }
          if (result instanceof Statement s) {
            String sql =
                method.getName().equals("prepareStatement") && args != null && args.length > 0
                    ? (String) args[0]
                    : null;
            return wrap(s, c, sql);
          }
          return result;
        };
    return (Connection)
        Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, h);
  }

  /** Executions of prepared statements whose SQL contains {@code text}. */
  int executed(String text) {
    int n = 0;
    for (String sql : executed) {
      if (sql.contains(text)) {
        n++;
      }
    }
    return n;
  }

  private Statement wrap(Statement s, Connection c, String sql) {
    Class<?> type =
        s instanceof java.sql.PreparedStatement
            ? java.sql.PreparedStatement.class
            : Statement.class;
    InvocationHandler h =
        (proxy, method, args) -> {
          if (method.getName().startsWith("execute")) {
            statements.incrementAndGet();
            if (sql != null) {
              executed.add(sql);
              beforeExecute.accept(sql);
            }
            if (c.getAutoCommit()) {
              transactions.incrementAndGet();
            }
          }
          return invoke(s, method, args);
        };
    return (Statement)
        Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, h);
  }

  private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args)
      throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return target.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    target.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    target.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return target.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() {
    return Logger.getGlobal();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return target.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return target.isWrapperFor(iface);
  }
}
