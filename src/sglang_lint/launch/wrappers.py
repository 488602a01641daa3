"""The commands that run another command after them (``env X=1``, ``nohup``, ``torchrun``,
``srun``, ``nsys profile``, ``uv run`` ...), with the options of theirs that take the next word
as a value, and the commands whose words are data (``echo``, ``grep``): a table launch/commands.py
reads to find the command word of a shell command."""

from __future__ import annotations


def _wrap(values: str = "", subcommands: str = "", positionals: int = 0) -> tuple[frozenset, tuple, int]:
    return frozenset(values.split()), tuple(subcommands.split()), positionals


_SRUN = ("-A --account -c --cpus-per-task -C --constraint -D --chdir -d --dependency -e --error -G --gpus -J "
         "--job-name -N --nodes -n --ntasks -o --output -p --partition -q --qos -t --time -w --nodelist -x --exclude "
         "--gres --mem --gpus-per-node --ntasks-per-node --container-image --container-mounts --export --mpi")
_TORCHRUN = ("--nproc-per-node --nproc_per_node --nnodes --node-rank --node_rank --master-addr --master_addr "
             "--master-port --master_port --rdzv-backend --rdzv_backend --rdzv-endpoint --rdzv_endpoint --rdzv-id")
_NSYS = ("-o --output -t --trace -s --sample -c --capture-range --capture-range-end -x --stop-on-exit -d --duration "
         "-y --delay -f --force-overwrite -w --show-output -e --env-var -b --backtrace -p --nvtx-capture")
_UV = ("--with --with-requirements --python -p --project --directory --env-file --extra --group --package "
       "--index --index-url --extra-index-url --from --cache-dir --config-file")
_CONDA, _MPI = "-n --name -p --prefix --cwd", "-n -np -N -H --host --hostfile -x --map-by --bind-to"
# Commands that run the command after them: (their options that take the next word as value, the
# subcommand they need, how many plain arguments come before the command).
WRAPPERS: dict[str, tuple[frozenset, tuple, int]] = {
    "env": _wrap("-u --unset -C --chdir -S --split-string"), "exec": _wrap("-a"), "nice": _wrap("-n --adjustment"),
    "time": _wrap("-f --format -o --output"),
    "sudo": _wrap("-u --user -g --group -C -D --chdir -h --host -p --prompt -r --role -t --type -U"),
    "ionice": _wrap("-c --class -n --classdata"), "stdbuf": _wrap("-i -o -e --input --output --error"),
    "timeout": _wrap("-s --signal -k --kill-after", "", 1), "taskset": _wrap("", "", 1), "chrt": _wrap("", "", 1),
    "numactl": _wrap("-N --cpunodebind -m --membind -C --physcpubind -i --interleave -p --preferred -P"),
    "srun": _wrap(_SRUN), "mpirun": _wrap(_MPI), "mpiexec": _wrap(_MPI), "torchrun": _wrap(_TORCHRUN),
    "nsys": _wrap(_NSYS, "profile launch"),
    "ncu": _wrap("-o --export -k --kernel-name -c --launch-count -s --launch-skip --set --section --metrics"),
    "uv": _wrap(_UV, "run"), "uvx": _wrap(_UV), **dict.fromkeys(("conda", "mamba", "micromamba"), _wrap(_CONDA, "run")),
    **dict.fromkeys(("poetry", "pipenv", "pdm", "rye"), _wrap("", "run")),
    # no options; with the control keywords before a command, and a console prompt left in a ```bash block
    **dict.fromkeys(("nohup", "command", "setsid", "if", "then", "else", "elif", "do", "while", "until", "!", "{", "$"),
                    _wrap()),
}
# Commands whose words are data, not a command: `echo python -m sglang.launch_server` launches nothing.
NOT_COMMANDS = frozenset(
    "echo printf grep egrep fgrep rg ag pgrep pkill killall kill ps cat tee sed awk less more man which whereis "
    "type alias export declare local readonly test [ [[ : true false read history".split()
)
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})  # `bash -c SCRIPT`: SCRIPT is split again
