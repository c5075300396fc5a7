"""The floor for this SSH stack: a bare paramiko thread pool running one probe per host.

No ssh_config parsing (hosts come pre-resolved as alias,hostname,port), no
audit log, no evaluation: connect with one key, verify the host key against
known_hosts, exec `sh -s` with the probe on stdin, read it all, close.
Used by sweep_bench.py; prints `ok=N failed=M`.

    python benchmarks/paramiko_pool.py HOSTS_CSV PROBE_FILE KEY KNOWN_HOSTS FANOUT
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor


def main(hosts_csv: str, probe_file: str, key: str, known_hosts: str, fanout: str) -> int:
    import paramiko

    probe = open(probe_file, "rb").read()
    hosts = [line.split(",") for line in open(hosts_csv).read().split()]
    keys = paramiko.HostKeys(known_hosts)

    def one(host: list[str]) -> bool:
        _alias, hostname, port = host
        client = paramiko.SSHClient()
        name = f"[{hostname}]:{port}"
        for ktype, k in (keys.lookup(name) or {}).items():
            client.get_host_keys().add(name, ktype, k)
        client.set_missing_host_key_policy(paramiko.RejectPolicy())
        try:
            client.connect(hostname, int(port), username="root", key_filename=key, look_for_keys=False,
                           allow_agent=False, timeout=60, banner_timeout=60, auth_timeout=60)
            stdin, stdout, _stderr = client.exec_command("sh -s", timeout=60)
            stdin.write(probe)
            stdin.channel.shutdown_write()
            out = stdout.read()
            return stdout.channel.recv_exit_status() == 0 and b":end:end:end" in out
        except Exception:
            return False
        finally:
            client.close()

    with ThreadPoolExecutor(int(fanout)) as pool:
        results = list(pool.map(one, hosts))
    print(f"ok={sum(results)} failed={len(results) - sum(results)}")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:6]))
