#!/usr/bin/env python3
"""IPC memory between two processes: this process allocates device memory,
fills it, exports it under a key and allows one process to import it; a
second process (this script, started with "import") reports its process
id, imports the memory by key, checks it, writes its answer into it and
closes it; the first process then reads the answer."""
import subprocess
import sys

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
DEVICE_ID = 0
SIZE = 2 << 20
KEY_LEN = 65


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))
    print("%s: ok" % what, flush=True)


def start():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")


def stop():
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")


def importer():
    """The second process: pid out, key in, answer written into the memory."""
    start()
    pid, ret = acl.rt.device_get_bare_tgid()
    check(ret, "acl.rt.device_get_bare_tgid")
    print("pid %d" % pid, flush=True)
    key = sys.stdin.readline().strip()
    dev, ret = acl.rt.ipc_mem_import_by_key(key, 0)
    check(ret, "acl.rt.ipc_mem_import_by_key")
    seen = bytes(SIZE)
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(seen), SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST),
          "memcpy shared memory -> host")
    if seen != bytes(i % 251 for i in range(SIZE)):
        raise RuntimeError("the imported memory does not hold the exporter's data")
    answer = b"answer from the importer"
    check(acl.rt.memcpy(dev, SIZE, acl.util.bytes_to_ptr(answer), len(answer), ACL_MEMCPY_HOST_TO_DEVICE),
          "memcpy answer -> shared memory")
    check(acl.rt.ipc_mem_close(key), "acl.rt.ipc_mem_close")
    stop()
    return 0


def exporter():
    start()
    dev, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    data = bytes(i % 251 for i in range(SIZE))
    check(acl.rt.memcpy(dev, SIZE, acl.util.bytes_to_ptr(data), SIZE, ACL_MEMCPY_HOST_TO_DEVICE),
          "memcpy host -> device")
    key, ret = acl.rt.ipc_mem_get_export_key(dev, SIZE, KEY_LEN, 0)
    check(ret, "acl.rt.ipc_mem_get_export_key")

    child = subprocess.Popen([sys.executable, __file__, "import"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, universal_newlines=True)
    pid = None
    for line in child.stdout:
        print("  importer: " + line.rstrip(), flush=True)
        if line.startswith("pid "):
            pid = int(line.split()[1])
            break
    if pid is None:
        raise RuntimeError("the importer did not report its process id")
    check(acl.rt.ipc_mem_set_import_pid(key, [pid]), "acl.rt.ipc_mem_set_import_pid")
    child.stdin.write(key + "\n")
    child.stdin.flush()
    for line in child.stdout:
        print("  importer: " + line.rstrip(), flush=True)
    if child.wait(timeout=60) != 0:
        raise RuntimeError("the importer failed (exit status %d)" % child.returncode)

    answer = bytes(24)
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(answer), len(answer), dev, len(answer),
                        ACL_MEMCPY_DEVICE_TO_HOST), "memcpy device -> host")
    if answer != b"answer from the importer":
        raise RuntimeError("the importer's answer is not in the memory: %r" % answer)
    print("the importer read %d bytes and answered through the shared memory" % SIZE)
    check(acl.rt.ipc_mem_close(key), "acl.rt.ipc_mem_close")
    check(acl.rt.free(dev), "acl.rt.free")
    stop()
    return 0


if __name__ == "__main__":
    sys.exit(importer() if sys.argv[1:] == ["import"] else exporter())
