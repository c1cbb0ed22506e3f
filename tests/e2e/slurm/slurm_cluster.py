"""A single-node Slurm for the tests, from Debian's slurm-wlm and munge: munged, slurmctld and
slurmd on localhost, run in the foreground as this process' children, with everything in one
temporary folder: the config (slurm.conf), the munge key and socket, the state and spool folders,
the logs, the jobs' TMPDIR; ports chosen free on 127.0.0.1. Clients (sbatch, srun, scontrol ...)
find it through SLURM_CONF in `env()`. Nothing outside the folder is read or written: /etc/slurm,
/etc/munge and any other Slurm on the machine are left alone. `stop()` cancels the jobs submitted
through `submit()`, ends the daemons and removes the folder; the daemons also get SIGTERM when
this process dies (PR_SET_PDEATHSIG)."""
import ctypes
import os
import pwd
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time

SBIN = "/usr/sbin:/sbin"
DAEMONS = ("munged", "mungekey", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "srun", "scontrol", "scancel", "sinfo")


def which(prog):
    return shutil.which(prog, path=os.environ.get("PATH", "") + ":" + SBIN)


def missing_programs():
    """The programs of slurm-wlm and munge not installed here."""
    return [p for p in DAEMONS + CLIENTS if not which(p)]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent():
    # PR_SET_PDEATHSIG = 1: SIGTERM to the daemon when the test process dies, however it dies.
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


class Cluster:
    NODE = "simnode"

    def __init__(self, cpus):
        # A short path: unix socket names (munge's, slurmd's per step) must stay under 108 bytes.
        self.root = tempfile.mkdtemp(prefix="simscope-slurm-", dir="/tmp")
        self.conf = os.path.join(self.root, "slurm.conf")
        self.cpus = cpus
        self.procs = {}
        self.jobs = []

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def env(self, **extra):
        """This environment without any outer Slurm job's or launcher's variables, with this
        cluster's SLURM_CONF and `extra`."""
        drop = ("SLURM_", "SBATCH_", "SRUN_", "PMI_", "PMIX_", "OMPI_COMM_WORLD")
        e = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
        e["PATH"] = e.get("PATH", "/usr/bin:/bin") + ":" + SBIN
        e["SLURM_CONF"] = self.conf
        # The ranks' Open MPI session folders: apart from another test Slurm's jobs of the same id.
        e["TMPDIR"] = self.path("tmp")
        e.update({k: str(v) for k, v in extra.items()})
        return e

    def _spawn(self, name, cmd):
        log = open(self.path(name + ".out"), "w")
        self.procs[name] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, env=self.env(),
                                            preexec_fn=_die_with_parent)

    def start(self, timeout=40):
        munge = self.path("munge")
        os.makedirs(munge)
        os.chmod(munge, 0o755)  # munged's socket folder: searchable by every client
        for d in ("state", "spool", "tmp"):
            os.makedirs(self.path(d))
        key, sock = os.path.join(munge, "munge.key"), os.path.join(munge, "socket")
        subprocess.run([which("mungekey"), "--create", "--keyfile", key], check=True)
        user = pwd.getpwuid(os.getuid()).pw_name
        host = socket.gethostname().split(".")[0]
        conf = {
            "ClusterName": "simscopetest",
            "SlurmctldHost": f"{host}(127.0.0.1)",
            "SlurmctldPort": _free_port(),
            "SlurmdPort": _free_port(),
            "SlurmUser": user,
            "SlurmdUser": user,
            "AuthType": "auth/munge",
            "CredType": "cred/munge",
            "AuthInfo": f"socket={sock}",
            "StateSaveLocation": self.path("state"),
            "SlurmdSpoolDir": self.path("spool"),
            "SlurmctldPidFile": self.path("slurmctld.pid"),
            "SlurmdPidFile": self.path("slurmd.pid"),
            "SlurmctldLogFile": self.path("slurmctld.log"),
            "SlurmdLogFile": self.path("slurmd.log"),
            # No cgroups (containers, CI): process groups track the jobs' processes.
            "ProctrackType": "proctrack/pgid",
            "TaskPlugin": "task/none",
            "JobAcctGatherType": "jobacct_gather/none",
            "AccountingStorageType": "accounting_storage/none",
            "JobCompType": "jobcomp/none",
            "SelectType": "select/cons_tres",
            "SelectTypeParameters": "CR_CPU",
            "SchedulerType": "sched/builtin",
            "MpiDefault": "none",
            "ReturnToService": 2,
            # The node may declare more CPUs than this machine has (the tests' ranks share them).
            "SlurmdParameters": "config_overrides",
            "KillWait": 5,
            "MinJobAge": 3600,  # finished jobs stay visible to scontrol show job
            "FirstJobId": random.randint(1000, 900000),  # not another test Slurm's ids
        }
        with open(self.conf, "w") as f:
            for k, v in conf.items():
                f.write(f"{k}={v}\n")
            f.write(f"NodeName={self.NODE} NodeHostname={host} NodeAddr=127.0.0.1 "
                    f"CPUs={self.cpus} State=UNKNOWN\n")
            f.write(f"PartitionName=test Nodes={self.NODE} Default=YES MaxTime=INFINITE "
                    f"State=UP\n")
        self._spawn("munged", [which("munged"), "--foreground", "--force", f"--socket={sock}",
                               f"--key-file={key}", f"--log-file={munge}/munged.log",
                               f"--pid-file={munge}/munged.pid",
                               f"--seed-file={munge}/munged.seed"])
        self._wait(lambda: os.path.exists(sock), timeout, "munged's socket")
        self._spawn("slurmctld", [which("slurmctld"), "-D", "-i", "-f", self.conf])
        self._spawn("slurmd", [which("slurmd"), "-D", "-f", self.conf, "-N", self.NODE])
        self._wait(lambda: self.node_state() == "idle", timeout, f"node {self.NODE} idle")

    def _wait(self, ready, timeout, what):
        t0 = time.monotonic()
        while not ready():
            dead = [n for n, p in self.procs.items() if p.poll() is not None]
            if dead or time.monotonic() - t0 > timeout:
                why = f"{', '.join(dead)} exited" if dead else f"not within {timeout} s"
                raise RuntimeError(f"the test Slurm did not start ({what}: {why})\n" +
                                   self.logs())
            time.sleep(0.2)

    def run(self, *cmd, env=None, timeout=60):
        """Runs a Slurm client command; CompletedProcess (text)."""
        return subprocess.run([which(cmd[0]), *map(str, cmd[1:])], capture_output=True,
                              text=True, timeout=timeout, env=env or self.env())

    def node_state(self):
        p = self.run("sinfo", "-h", "-n", self.NODE, "-o", "%T", timeout=10)
        return p.stdout.strip() if p.returncode == 0 else ""

    def submit(self, *args, env=None):
        """sbatch --parsable ARGS; the job id (array jobs: the array's id)."""
        p = self.run("sbatch", "--parsable", *args, env=env)
        if p.returncode != 0:
            raise RuntimeError(f"sbatch {' '.join(map(str, args))}: {p.stderr.strip()}")
        job = p.stdout.strip().split(";")[0]
        self.jobs.append(job)
        return job

    def job(self, job):
        """scontrol show job JOB as a dict of its first record's KEY=VALUE fields."""
        p = self.run("scontrol", "show", "job", "-o", job, timeout=10)
        fields = {}
        for word in p.stdout.splitlines()[0].split() if p.stdout.strip() else []:
            k, _, v = word.partition("=")
            fields.setdefault(k, v)
        return fields

    def jobs_of(self, job):
        """One dict per record of scontrol show job JOB (an array: one per task)."""
        p = self.run("scontrol", "show", "job", "-o", job, timeout=10)
        out = []
        for line in p.stdout.splitlines():
            fields = {}
            for word in line.split():
                k, _, v = word.partition("=")
                fields.setdefault(k, v)
            out.append(fields)
        return out

    def wait_state(self, job, states, timeout):
        """Waits until every record of JOB is in one of `states`; the last records seen."""
        t0 = time.monotonic()
        while True:
            recs = self.jobs_of(job)
            if recs and all(r.get("JobState") in states for r in recs):
                return recs
            if time.monotonic() - t0 > timeout:
                return recs
            time.sleep(0.2)

    def logs(self, tail=25):
        out = []
        for f in ("slurmctld.log", "slurmd.log", "munge/munged.log", "slurmctld.out",
                  "slurmd.out", "munged.out"):
            try:
                lines = open(self.path(f), errors="replace").read().splitlines()[-tail:]
            except OSError:
                continue
            out.append(f"--- {f} (last {len(lines)} lines)\n" + "\n".join(lines))
        return "\n".join(out)

    def stop(self):
        if self.jobs and "slurmctld" in self.procs and self.procs["slurmctld"].poll() is None:
            self.run("scancel", *self.jobs, timeout=20)
            t0 = time.monotonic()
            while time.monotonic() - t0 < 15 and any(
                    r.get("JobState") in ("RUNNING", "COMPLETING", "PENDING", "CONFIGURING")
                    for j in self.jobs for r in self.jobs_of(j)):
                time.sleep(0.3)
        for name in ("slurmd", "slurmctld", "munged"):
            p = self.procs.get(name)
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        shutil.rmtree(self.root, ignore_errors=True)
