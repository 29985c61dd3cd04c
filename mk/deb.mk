# mk/deb.mk: the Debian package (debian/) and the tests of what it ships.
#   make deb         build/fgraphtop_<version>_amd64.deb, lintian-checked
#   make deb ARCH=arm64
#                    build/arm64/fgraphtop_<version>_arm64.deb, cross-built
#                    (dpkg-buildpackage -a arm64), lintian-checked
#   make test-deb-arm64
#                    both packages: the arm64 one's binary is aarch64, runs
#                    under qemu-aarch64-static, and all else in it is the
#                    amd64 one's (tests/deb/test-deb-arm64.sh)
#   make test-rules  promtool on dist/prometheus/ (alert rules and their tests)
#   make test-deb    dpkg -i, the check from /usr/sbin, the units verified,
#                    dpkg -r and purge leave nothing (tests/deb/test-deb.sh)
# The package is built from a copy of the tree in $(BUILD)/deb, so nothing
# dpkg-buildpackage writes (debian/ outputs, ../*.changes) lands in the tree.

DEB_VERSION := $(shell dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null)
# Debian's name for the Makefile's ARCH; each has its own $(BUILD)
DEB_ARCH_x86   := amd64
DEB_ARCH_arm64 := arm64
DEB_ARCH    := $(DEB_ARCH_$(ARCH))
DEB_FILE_FOR = $(BUILD_$(1))/fgraphtop_$(DEB_VERSION)_$(DEB_ARCH_$(1)).deb
DEB_FILE    := $(call DEB_FILE_FOR,$(ARCH))
DEB_WORK    := $(BUILD)/deb
# A cross build (arm64 here, on amd64) says so as sbuild does: the cross
# profile, nocheck (debian/rules runs no tests anyway; dh warns otherwise),
# and CC, which dpkg-architecture checks against the host's GNU type.
DEB_BUILD_ARCH := $(shell dpkg-architecture -qDEB_BUILD_ARCH 2>/dev/null)
ifneq ($(DEB_ARCH),$(DEB_BUILD_ARCH))
DEB_CROSS   := CC=$(CC) DEB_BUILD_OPTIONS="$(strip $(DEB_BUILD_OPTIONS) nocheck)"
DEB_CROSS_OPTS := -Pcross,nocheck
endif
# tags lintian may show at all; each override in debian/ says why
LINTIAN     := lintian --fail-on error,warning,info,pedantic --info --display-info --pedantic

.PHONY: deb
deb: $(DEB_FILE)

# Every file that goes in: the tree itself (the package build runs its Makefile).
DEB_INPUTS := $(shell find debian dist src bpf man vmlinux Makefile mk README.md docs \
		-type f -o -type l 2>/dev/null)

$(DEB_FILE): $(DEB_INPUTS)
	@[ -n "$(DEB_VERSION)" ] || { echo "deb: no version in debian/changelog (dpkg-dev installed?)"; exit 1; }
	rm -rf $(DEB_WORK)
	mkdir -p $(DEB_WORK)/fgraphtop-$(DEB_VERSION)
	tar -cf - --exclude=./build --exclude=./.git . | tar -xf - -C $(DEB_WORK)/fgraphtop-$(DEB_VERSION)
	cd $(DEB_WORK)/fgraphtop-$(DEB_VERSION) && \
		$(DEB_CROSS) dpkg-buildpackage -us -uc -b -a $(DEB_ARCH) $(DEB_CROSS_OPTS) \
		> ../build.log 2>&1 || \
		{ tail -30 $(CURDIR)/$(DEB_WORK)/build.log; exit 1; }
	$(LINTIAN) $(DEB_WORK)/fgraphtop_$(DEB_VERSION)_$(DEB_ARCH).changes
	mv $(DEB_WORK)/fgraphtop_$(DEB_VERSION)_$(DEB_ARCH).deb $@
	rm -rf $(DEB_WORK)/fgraphtop-$(DEB_VERSION)

.PHONY: test-rules
test-rules:
	promtool check rules dist/prometheus/fgraphtop.rules.yml
	cd dist/prometheus && promtool test rules fgraphtop.rules.test.yml

.PHONY: test-deb
test-deb: $(DEB_FILE)
	tests/deb/test-deb.sh $(DEB_FILE)

CHECK_TARGETS += test-rules
TEST_TARGETS += test-deb

# The arm64 package beside the amd64 one, whatever ARCH this make has: each is
# its own make (its own BUILD, CC), then the two are compared. Nothing is
# installed: the binary runs under qemu-aarch64-static.
.PHONY: test-deb-arm64
test-deb-arm64:
	$(MAKE) --no-print-directory ARCH=x86 deb
	$(MAKE) --no-print-directory ARCH=arm64 deb
	tests/deb/test-deb-arm64.sh $(call DEB_FILE_FOR,arm64) $(call DEB_FILE_FOR,x86)

TEST_TARGETS += test-deb-arm64

# fgraphtop-check.service's CapabilityBoundingSet, in the lab (no systemd
# there): fgt-capbound runs the check with exactly those capabilities, on
# kernels with fgraph (tests/deb/lab-caps.sh, lab/scenarios/unit-caps.sh).
FGT_CAPBOUND := $(BUILD)/lab/fgt-capbound
$(FGT_CAPBOUND): tests/deb/capbound.c
	mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -static -o $@ $<

.PHONY: test-lab-caps
test-lab-caps: $(BUILD)/fgraphtop $(FGT_CAPBOUND) lab-image
	tests/deb/lab-caps.sh

TEST_TARGETS += test-lab-caps

# The package under a real systemd (PID 1 in a guest: Debian 12's userland,
# mmdebstrap, cached), on Debian's 6.12 (tracefs-instance trigger) and 6.1
# (top-level trigger): the sandboxed service answers, with --trigger too,
# writes its textfile, says so without the directory, sees /sys read-only and
# tracefs writable; dpkg -r stops an enabled timer. It needs those two
# kernels, not all the lab's nor its image: each is fetched if the cache
# lacks it, and a cache that has it takes no lock (another kernels.sh may be
# building for minutes).
DEB_VM_KERNELS := debian-6.12 debian-6.1
.PHONY: test-deb-vm
test-deb-vm: $(DEB_FILE)
	for k in $(DEB_VM_KERNELS); do \
		lab/kernels.sh path $$k > /dev/null 2>&1 || lab/kernels.sh ensure $$k || exit 1; \
	done
	for k in $(DEB_VM_KERNELS); do tests/deb/unit-vm.sh $(DEB_FILE) -k $$k || exit 1; done

TEST_TARGETS += test-deb-vm

# shellcheck on this fragment's scripts (mk/lint.mk's lists are the tree's
# others, its guest scenarios included): the packaging and its tests.
.PHONY: test-shellcheck-deb
test-shellcheck-deb:
	shellcheck -x tests/deb/*.sh dist/systemd/fgraphtop-check debian/fgraphtop.prerm debian/fgraphtop.postrm

CHECK_TARGETS += test-shellcheck-deb
