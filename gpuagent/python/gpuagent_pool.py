"""gpuagent_pool maps gpuagent's KV pool into a Python process.

An engine written in Python leases sequences from gpuagent over its Unix
socket and maps the KV pool itself: the agent sends one POSIX file
descriptor per committed chunk over SCM_RIGHTS (see gpuagent/wire/pool.go),
and this module imports each with the CUDA driver (ctypes over
libcuda.so.1, no compiled extension) at the same offset of one reserved
address range, so block b is at pool.addr(b) here and at the same offset in
the agent. Blocks are exposed to PyTorch or CuPy without copying, through
__cuda_array_interface__ (torch.as_tensor(pool.block(b), device="cuda")).

The pool follows the agent: a background thread maps every chunk the agent
commits before any block in it is handed out, and unmaps (after waiting for
this process's work on the device) every chunk before the agent decommits
it. If mapping fails, the agent ends the lease; Pool.error says why.
"""

import ctypes
import json
import os
import socket
import struct
import threading
import time
from collections import deque

POOL_PROTOCOL = "gpuagent-pool/1"
FRAMES_PROTOCOL = "gpuagent-frames/1"
MAX_FDS = 128
CALL_OPEN, CALL_RENEW, CALL_CLOSE, CALL_STEP, CALL_ADMIT, CALL_REPORT, CALL_STATS = range(1, 8)


class AgentError(Exception):
    """A refusal from the agent: code and message as gpuagent/wire says."""

    def __init__(self, status, body):
        self.status = status
        self.code = body.get("code", "")
        self.body = body
        super().__init__("%s: %s" % (self.code, body.get("message", "")))


class Agent:
    """One connection to the agent, upgraded to frames, and its lease."""

    def __init__(self, path, timeout=30.0):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.lock = threading.Lock()
        self.lease = None
        self.limits = None
        req = ("GET /v1/frames HTTP/1.1\r\nHost: gpuagent\r\nConnection: Upgrade\r\n"
               "Upgrade: %s\r\n\r\n" % FRAMES_PROTOCOL)
        self.sock.sendall(req.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("agent closed the connection during the upgrade")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError("upgrade refused: %r" % head[:80])

    def _recv_exact(self, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("agent closed the connection")
            buf += chunk
        return bytes(buf)

    def call(self, call, body=None):
        data = json.dumps(body if body is not None else {}).encode()
        with self.lock:
            self.sock.sendall(struct.pack(">I", len(data) + 1) + bytes([call]) + data)
            (size,) = struct.unpack(">I", self._recv_exact(4))
            frame = self._recv_exact(size)
        status = struct.unpack(">H", frame[:2])[0]
        out = json.loads(frame[2:] or b"{}")
        if status != 200:
            raise AgentError(status, out)
        return out

    def open(self, ttl_ms=60000, name="python"):
        got = self.call(CALL_OPEN, {"ttl_ms": ttl_ms, "name": name})
        self.lease, self.limits = got["lease"], got["limits"]
        return got

    def renew(self):
        return self.call(CALL_RENEW, {"lease": self.lease})

    def admit(self, max_tokens, tokens, hashes=()):
        op = {"op": "admit", "max_tokens": max_tokens, "tokens": tokens}
        if hashes:
            op["hashes"] = list(hashes)
        return self.call(CALL_ADMIT, {"lease": self.lease, "op": op})

    def step(self, ops):
        return self.call(CALL_STEP, {"lease": self.lease, "ops": ops})

    def free(self, seq):
        res = self.step([{"op": "free", "seq": seq}])["results"][0]
        if res.get("error"):
            raise AgentError(400, res["error"])

    def stats(self):
        return self.call(CALL_STATS)

    def close(self):
        self.sock.close()


class _Driver:
    """The few CUDA driver calls a pool needs, by ctypes."""

    def __init__(self, device=0):
        cu = ctypes.CDLL("libcuda.so.1")
        self.cu = cu
        u64, sz = ctypes.c_uint64, ctypes.c_size_t
        cu.cuInit.argtypes = [ctypes.c_uint]
        cu.cuDeviceGet.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int]
        cu.cuDevicePrimaryCtxRetain.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int]
        cu.cuCtxSetCurrent.argtypes = [ctypes.c_void_p]
        cu.cuMemAddressReserve.argtypes = [ctypes.POINTER(u64), sz, sz, u64, u64]
        cu.cuMemAddressFree.argtypes = [u64, sz]
        cu.cuMemImportFromShareableHandle.argtypes = [ctypes.POINTER(u64), ctypes.c_void_p, ctypes.c_int]
        cu.cuMemMap.argtypes = [u64, sz, sz, u64, u64]
        cu.cuMemUnmap.argtypes = [u64, sz]
        cu.cuMemRelease.argtypes = [u64]
        cu.cuMemSetAccess.argtypes = [u64, sz, ctypes.c_void_p, sz]
        self._check("cuInit", cu.cuInit(0))
        dev = ctypes.c_int()
        self._check("cuDeviceGet", cu.cuDeviceGet(ctypes.byref(dev), device))
        self.dev = dev.value
        ctx = ctypes.c_void_p()
        self._check("cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), self.dev))
        self.ctx = ctx

    @staticmethod
    def _check(name, code):
        if code != 0:
            raise RuntimeError("%s: CUresult %d" % (name, code))

    def current(self):
        """Makes the device's primary context (PyTorch's) current here."""
        self._check("cuCtxSetCurrent", self.cu.cuCtxSetCurrent(self.ctx))

    def reserve(self, size, align):
        p = ctypes.c_uint64()
        self._check("cuMemAddressReserve", self.cu.cuMemAddressReserve(ctypes.byref(p), size, align, 0, 0))
        return p.value

    def map_fd(self, va, size, fd):
        h = ctypes.c_uint64()
        self._check("cuMemImportFromShareableHandle",
                    self.cu.cuMemImportFromShareableHandle(ctypes.byref(h), ctypes.c_void_p(fd), 1))
        try:
            self._check("cuMemMap", self.cu.cuMemMap(va, size, 0, h.value, 0))
            desc = (ctypes.c_int * 3)(1, self.dev, 3)  # location device, id, PROT_READWRITE
            code = self.cu.cuMemSetAccess(va, size, desc, 1)
            if code != 0:
                self.cu.cuMemUnmap(va, size)
                self._check("cuMemSetAccess", code)
        finally:
            self.cu.cuMemRelease(h.value)  # the memory lives until the unmap

    def unmap(self, va, size):
        self._check("cuCtxSynchronize", self.cu.cuCtxSynchronize())
        self._check("cuMemUnmap", self.cu.cuMemUnmap(va, size))

    def free(self, va, size):
        self._check("cuMemAddressFree", self.cu.cuMemAddressFree(va, size))


class _Block:
    """A device array over one block, for torch.as_tensor or cupy.asarray."""

    def __init__(self, ptr, nbytes):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (ptr, False),
                                         "version": 3, "strides": None}


class Pool:
    """The agent's global KV pool mapped into this process for agent's lease."""

    def __init__(self, agent, device=0, timeout=30.0):
        self.drv = _Driver(device)
        self.drv.current()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(agent.path)
        self.buf = bytearray()
        self.fds = deque()
        self.mapped = {}  # offset -> size
        self.map_times = []  # seconds to import and map each chunk
        self.error = None
        self.lock = threading.Lock()
        self.base = 0
        req = ("GET /v1/pool HTTP/1.1\r\nHost: gpuagent\r\nConnection: Upgrade\r\nUpgrade: %s\r\n"
               "Gpuagent-Lease: %s\r\n\r\n" % (POOL_PROTOCOL, agent.lease))
        self.sock.sendall(req.encode())
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, _, rest = bytes(self.buf).partition(b"\r\n\r\n")
        self.buf = bytearray(rest)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError("pool upgrade refused: %r" % head[:80])
        msg = self._next()
        self.layout = msg["layout"]
        self.base = self.drv.reserve(self.layout["reserve_bytes"], self.layout["granularity_bytes"])
        self._answer(msg)
        self.sock.settimeout(None)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _fill(self):
        data, anc, _, _ = self.sock.recvmsg(1 << 16, socket.CMSG_SPACE(4 * MAX_FDS))
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                n = len(payload) // 4
                self.fds.extend(struct.unpack("%di" % n, payload[:4 * n]))
        if not data:
            raise ConnectionError("the agent closed the pool connection")
        self.buf += data

    def _next(self):
        while len(self.buf) < 4 or len(self.buf) < 4 + struct.unpack(">I", self.buf[:4])[0]:
            self._fill()
        size = struct.unpack(">I", self.buf[:4])[0]
        msg = json.loads(bytes(self.buf[4:4 + size]))
        del self.buf[:4 + size]
        if msg.get("op") == "error":
            raise ConnectionError(msg.get("error"))
        return msg

    def _answer(self, msg):
        err = ""
        try:
            if msg["op"] == "map":
                self._map(msg["chunks"])
            elif msg["op"] == "unmap":
                self._unmap(msg["chunks"])
            else:
                err = "unknown pool message %r" % msg["op"]
        except Exception as e:  # the agent ends the lease and says why
            err = str(e)
        ack = json.dumps({"seq": msg["seq"], "error": err} if err else {"seq": msg["seq"]}).encode()
        self.sock.sendall(struct.pack(">I", len(ack)) + ack)
        if err:
            raise RuntimeError(err)

    def _map(self, chunks):
        fds = [self.fds.popleft() for _ in chunks]
        try:
            for c, fd in zip(chunks, fds):
                t0 = time.perf_counter()
                self.drv.map_fd(self.base + c["offset"], c["size"], fd)
                self.map_times.append(time.perf_counter() - t0)
                with self.lock:
                    self.mapped[c["offset"]] = c["size"]
        finally:
            for fd in fds:
                os.close(fd)

    def _unmap(self, chunks):
        for c in chunks:
            self.drv.unmap(self.base + c["offset"], c["size"])
            with self.lock:
                del self.mapped[c["offset"]]

    def _serve(self):
        self.drv.current()
        try:
            while True:
                self._answer(self._next())
        except Exception as e:
            self.error = e

    def addr(self, block):
        """The address of block (1 to layout['blocks']) in this process."""
        return self.base + (block - 1) * self.layout["block_bytes"]

    def block(self, b):
        """Block b as a uint8 device array (no copy); torch.as_tensor(..., device='cuda')."""
        return _Block(self.addr(b), self.layout["block_bytes"])

    def mapped_bytes(self):
        with self.lock:
            return sum(self.mapped.values())

    def close(self):
        """Ends the pool connection (and so the lease) and unmaps everything."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        if hasattr(self, "thread"):
            self.thread.join(5)
        self.drv.current()
        with self.lock:
            for off, size in list(self.mapped.items()):
                self.drv.unmap(self.base + off, size)
            self.mapped.clear()
        if self.base:
            self.drv.free(self.base, self.layout["reserve_bytes"])
            self.base = 0
        for fd in self.fds:
            os.close(fd)
        self.fds.clear()
