#!/bin/sh
# Installs the Debian packages locklab needs. Checks first; installs (and runs
# apt-get update) only when something is missing, so a second run is instant
# and needs no network.
set -e
PKGS="build-essential pkg-config scons libsimgrid-dev libgsl-dev libgraphviz-dev graphviz \
libhwloc-dev hwloc libxml2-dev libcmocka-dev libck-dev gnuplot-nox chromium slurm-wlm munge"
missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "deps.sh: all packages present"
    exit 0
fi
echo "deps.sh: installing:$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
# slurm-wlm and munge start their services on install: keep them stopped (the
# Slurm test starts its own daemons), also where there is no init system.
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod 755 /usr/sbin/policy-rc.d
    trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
