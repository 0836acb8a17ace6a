#!/usr/bin/env bash
# The base of every outbox image, made from what the build machine has, since no registry can be
# pulled from: a JRE that jlink cuts from the build JDK down to the modules the processes use, the
# shared libraries of this machine that JRE links against (glibc's loader, libc, libm, libz,
# libstdc++, libgcc_s: ldd says which), a numeric non-root user and a writable /tmp. No shell, no
# package manager, no compiler or other JDK tool. Written as a docker-archive tar (what `docker save`
# writes), which Jib takes as a base with `tar://`; Jib cannot give a directory the sticky bit or a
# file another owner than root, so the base is a real image rather than Jib extra directories.
#
# usage: build-base.sh OUTPUT_TAR IMAGE_NAME TIMESTAMP MODULES
#   TIMESTAMP  ISO-8601, every file's mtime and the image's creation time (project.build.outputTimestamp)
#   MODULES    comma-separated JDK modules for jlink
# JAVA_HOME is the JDK whose jmods the JRE is made from.
set -euo pipefail
umask 022
export LC_ALL=C

out=$1 name=$2 stamp=$3 modules=$4
jdk=${JAVA_HOME:?JAVA_HOME must name the JDK to cut the JRE from}
uid=65532

die() { printf 'build-base.sh: %s\n' "$*" >&2; exit 1; }
[ -d "$jdk/jmods" ] || die "$jdk has no jmods (Debian: package openjdk-17-jdk-headless)"
command -v ldd >/dev/null || die "ldd is missing: it names the libraries the JRE needs"
epoch=$(date -u -d "$stamp" +%s) || die "not a timestamp: $stamp"
case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64) arch=arm64 ;;
  *) die "no image architecture known for $(uname -m)" ;;
esac

mkdir -p "$(dirname "$out")"

# --- up to date? ---------------------------------------------------------------------------------
# the same script, arguments, JDK and host libraries make the same bytes: keep the tar and spare the
# jlink run (half a minute on two busy cores); the libraries are those the last build copied
fingerprint() {
  { sha256sum "$0"; printf '%s\n' "$out" "$name" "$stamp" "$modules"; sha256sum "$jdk/release"
    if [ -f "$out.libs" ]; then xargs -r sha256sum < "$out.libs"; fi; } | sha256sum | cut -d' ' -f1
}
if [ -f "$out" ] && [ -f "$out.inputs" ] && [ "$(cat "$out.inputs")" = "$(fingerprint)" ]; then
  printf 'base image %s: %s is up to date\n' "$name" "$out"
  exit 0
fi
work=$(mktemp -d "$(dirname "$out")/base.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/rootfs
mkdir -p "$root"

# --- the JRE -------------------------------------------------------------------------------------
# java.desktop is there for java.beans only (MyBatis' OGNL, HK2, the JDBC driver use it): its native
# AWT libraries, which would need X11, are left out, and so are keytool and jfr: java is the only
# program in the image
"$jdk/bin/jlink" --module-path "$jdk/jmods" --add-modules "$modules" \
  --strip-debug --no-header-files --no-man-pages \
  --exclude-files 'glob:/java.desktop/lib/**,glob:/java.base/bin/keytool,glob:/jdk.jfr/bin/jfr' \
  --output "$root/opt/java"

# --- the host libraries the JRE links against ----------------------------------------------------
# ldd prints the whole closure; the loader is on its own line ("/lib64/ld-linux-x86-64.so.2 (0x...)")
libs=$(find "$root/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' -o -name jspawnhelper -o -name jexec \) \
  -exec ldd {} \; 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' \
  | grep -v "^$root/" | sort -u)
[ -n "$libs" ] || die "ldd found no libraries: is this a glibc system?"
for lib in $libs; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
  chmod 755 "$root$lib"
  # their licences travel with them
  if command -v dpkg >/dev/null; then
    real=$(readlink -f "$lib")
    pkg=$(dpkg -S "$real" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null || dpkg -S "/usr$real" 2>/dev/null || true)
    pkg=${pkg%%:*}
    if [ -n "$pkg" ] && [ -f "/usr/share/doc/$pkg/copyright" ]; then
      mkdir -p "$root/usr/share/doc/$pkg"
      cp "/usr/share/doc/$pkg/copyright" "$root/usr/share/doc/$pkg/copyright"
    fi
  fi
done

# --- the user, name lookups, /tmp ----------------------------------------------------------------
mkdir -p "$root/etc" "$root/home/nonroot" "$root/tmp"
cat > "$root/etc/passwd" <<PASSWD
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:$uid:$uid:nonroot:/home/nonroot:/sbin/nologin
PASSWD
cat > "$root/etc/group" <<GROUP
root:x:0:
nonroot:x:$uid:
GROUP
# glibc 2.34+ has the files and dns sources built in: no libnss_*.so to carry
cat > "$root/etc/nsswitch.conf" <<NSS
passwd: files
group: files
hosts: files dns
NSS
chmod -R u=rwX,go=rX "$root"
chmod 1777 "$root/tmp"
chmod 755 "$root/opt/java/bin/java"

# --- one layer, byte for byte the same from the same inputs ---------------------------------------
det=(--sort=name --mtime="@$epoch" --numeric-owner --format=posix
     --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime)
layer=$work/layer.tar
# shellcheck disable=SC2012 # names made above, no blanks
tar --create --file "$layer" --directory "$root" "${det[@]}" --owner=0 --group=0 \
  --exclude=home/nonroot $(ls -A "$root")
# the user's home is the one entry not owned by root: a second archive, appended
tar --create --file "$work/home.tar" --directory "$root" "${det[@]}" --owner=$uid --group=$uid \
  --no-recursion home/nonroot
tar --concatenate --file "$layer" "$work/home.tar"
diff_id=$(sha256sum "$layer" | cut -d' ' -f1)

# --- docker-archive: manifest.json, the config, the layer ------------------------------------------
image=$work/image
mkdir -p "$image/$diff_id"
mv "$layer" "$image/$diff_id/layer.tar"
printf '{"architecture":"%s","os":"linux","created":"%s","config":{"User":"%s:%s","Env":["PATH=/opt/java/bin","JAVA_HOME=/opt/java"],"WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created":"%s","created_by":"ops/images/base/build-base.sh: jlink %s, the host libraries it links against, user %s"}]}' \
  "$arch" "$stamp" "$uid" "$uid" "$diff_id" "$stamp" "$modules" "$uid" > "$work/config.json"
config_id=$(sha256sum "$work/config.json" | cut -d' ' -f1)
mv "$work/config.json" "$image/$config_id.json"
printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' "$config_id" "$name" "$diff_id" \
  > "$image/manifest.json"
tar --create --file "$work/out.tar" --directory "$image" "${det[@]}" --owner=0 --group=0 \
  manifest.json "$config_id.json" "$diff_id"
mv "$work/out.tar" "$out"
printf '%s\n' $libs > "$out.libs"
fingerprint > "$out.inputs"
printf 'base image %s: %s (%s bytes, layer sha256:%s)\n' "$name" "$out" "$(stat -c %s "$out")" "$diff_id"
