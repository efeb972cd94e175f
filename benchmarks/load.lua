-- wrk script for benchmarks/load.sh (one wrk thread: -t1).
--
--   wrk -t1 -c64 -d10s --latency -s benchmarks/load.lua URL -- MODE POOL FIRST COUNT [MARKER]
--
-- MODE  new    every request is the next pre-signed delivery of the pool: each a new event_uuid
--       dup10  the same, but every 10th request repeats, byte for byte, one of the 64..5000
--              requests before it (a redelivery of an event that is done or still in flight)
--       crc    GET URL?crc_token=<uuid-like>, 100,000 distinct tokens in turn
-- POOL  the file written by io.servicehooks.benchmarks.PoolGenerator: a header line
--       "servicehooks-pool <count> <recordBytes>", then fixed-size raw HTTP requests
-- FIRST, COUNT  the records to use: [FIRST, FIRST + COUNT). A run that needs more wraps around
--       within them (repeats!) and reports it as wrapped=1 on its RESULT line.
-- MARKER  optional: a file written once the records are loaded, just before wrk starts its clock
--       (load.sh reads the server's CPU time then, so loading the pool is not in the window)
--
-- Loading happens in init(), before wrk starts its clock. After loading, the Lua GC is left
-- stopped: request() allocates nothing, and no collection may pause the load generator.

local reqs = {}
local n = 0
local i = 0
wrapped = 0
loaded = 0

local function token(k)
  -- uuid-like, distinct for each k
  return string.format("%08x-%04x-4%03x-a%03x-%012x", k * 2654435761 % 4294967296, k % 65536,
    k % 4096, (k * 7) % 4096, k * 40503)
end

local function loaded_marker(path)
  if path and path ~= "" then
    local m = assert(io.open(path, "w"))
    m:write("loaded\n")
    m:close()
  end
end

function init(args)
  local mode, file = args[1], args[2]
  local first, count = tonumber(args[3] or "0"), tonumber(args[4] or "0")
  collectgarbage("stop")
  if mode == "crc" then
    for k = 1, 100000 do
      reqs[k] = wrk.format("GET", wrk.path .. "?crc_token=" .. token(k))
    end
    n = 100000
    loaded = n
    loaded_marker(args[5])
    return
  end
  local f = assert(io.open(file, "rb"))
  local total, size = f:read("*l"):match("^servicehooks%-pool (%d+) (%d+)$")
  total, size = tonumber(total), tonumber(size)
  if first + count > total then
    count = total - first
  end
  assert(count > 0, "pool too small for FIRST=" .. first)
  f:seek("set", f:seek() + first * size)
  if mode == "new" then
    for k = 1, count do
      reqs[k] = f:read(size)
    end
    n = count
  elseif mode == "dup10" then
    math.randomseed(42)
    local used, k = 0, 0
    while used < count do
      k = k + 1
      if k % 10 == 0 and k > 5000 then
        reqs[k] = reqs[k - math.random(64, 5000)]
      else
        used = used + 1
        reqs[k] = f:read(size)
      end
    end
    n = k
  else
    error("unknown mode " .. tostring(mode))
  end
  f:close()
  loaded = n
  loaded_marker(args[5])
end

function request()
  i = i + 1
  if i > n then
    i = 1
    wrapped = 1
  end
  return reqs[i]
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function done(summary, latency, requests)
  local w, l = 0, 0
  for _, t in ipairs(threads) do
    w = math.max(w, t:get("wrapped"))
    l = l + t:get("loaded")
  end
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d duration_us=%d rps=%.1f p50_us=%d p99_us=%d mean_us=%.0f max_us=%d " ..
    "errors=%d connect=%d read=%d write=%d status=%d timeout=%d wrapped=%d loaded=%d\n",
    summary.requests, summary.duration, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99), latency.mean, latency.max,
    e.connect + e.read + e.write + e.status + e.timeout, e.connect, e.read, e.write, e.status,
    e.timeout, w, l))
end
