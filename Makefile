# tcptune — see README.md. `make demo` runs the main job; `make test` runs
# every test (installing what it needs) and the cross-builds.
GO      ?= go
BIN     := bin/tcptune
PKGS    := ./...
OSES    := linux freebsd darwin windows illumos
# The packages whose goroutines share state: run again under the race detector.
RACE    := ./internal/server ./internal/engine ./internal/client ./internal/wire ./internal/relay

.PHONY: fleet-demo package all build test unit deps cross fuzz demo bench clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/tcptune

# Debian packages the tests use: iperf3 (the interop peer), iproute2 (ip,
# ss), procps (sysctl), chromium (renders tune's HTML report), systemd
# (systemd-analyze), udev (udevadm: which .link file applies), lintian
# (checks the .deb) and prometheus (scrapes serve and watch); the newest
# iperf3 (3.22, Debian sid's) unpacked under .cache/, not installed; and
# the Go modules of every system's build and of the packager.
deps:
	@missing=""; \
	command -v iperf3 >/dev/null 2>&1 || missing="$$missing iperf3"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v ip >/dev/null 2>&1 || missing="$$missing iproute2"; \
	command -v sysctl >/dev/null 2>&1 || missing="$$missing procps"; \
	command -v systemd-analyze >/dev/null 2>&1 || missing="$$missing systemd"; \
	command -v udevadm >/dev/null 2>&1 || missing="$$missing udev"; \
	command -v lintian >/dev/null 2>&1 || missing="$$missing lintian"; \
	command -v prometheus >/dev/null 2>&1 || missing="$$missing prometheus"; \
	command -v /usr/sbin/sshd >/dev/null 2>&1 || missing="$$missing openssh-server"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
	@scripts/iperf3-newest.sh >/dev/null
	@# fetched here, so that no test's timeout waits on the registry
	@$(GO) mod download && $(GO) run $(NFPM) --version >/dev/null

# The unit packages side by side, with the cross-builds beside them (the
# packaging test waits on lintian, one core; a cold build cache makes
# the four other systems' builds about 2 minutes); e2e (lab, interop:
# they measure throughput) with -p 1, one package at a time, and nothing
# beside them.
test: deps build
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet $(PKGS)
	@$(MAKE) --no-print-directory cross OSES="$(filter-out linux,$(OSES))" & cross=$$!; \
	$(GO) test -count=1 -timeout 5m $$($(GO) list $(PKGS) | grep -v /e2e/); rc=$$?; \
	wait $$cross || { echo "cross: failed"; exit 1; }; exit $$rc
	$(GO) test -count=1 -p 1 -timeout 12m ./e2e/...
	$(GO) test -count=1 -race $(RACE)
	$(MAKE) --no-print-directory fuzz

unit:
	$(GO) test -count=1 -short $(PKGS)

# A short run of the control-message fuzzer (go test -fuzz): a count of
# inputs, not a duration (a duration can end the run mid-input and fail
# it with "context deadline exceeded").
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzControl -fuzztime 400000x ./internal/wire/

cross:
	@for os in $(OSES); do \
		echo "cross: GOOS=$$os"; \
		GOOS=$$os GOARCH=amd64 $(GO) build -o /dev/null ./cmd/tcptune || exit 1; \
		GOOS=$$os GOARCH=amd64 $(GO) vet ./... || exit 1; \
	done

# The main job on the built-in lab: tune a 1 Gbit/s × 50 ms link (root).
# Trials of 2 s (the default is 5) keep it under 3 minutes.
demo: build
	@if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	$$SUDO ./$(BIN) tune --lab --rate 1gbit --rtt 50ms --time 2 --report tune-report.html

# .deb and .rpm in dist/ (nfpm, pinned): the binary, man pages, shell
# completions, the hardened tcptune-serve.service and /etc/default/tcptune.
NFPM    := github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
VERSION := $(shell sed -n 's/^const Version = "\(.*\)"/\1/p' internal/version/version.go)
# .deb and .rpm for each of ARCHES (Go's names; nfpm maps them to the
# distributions'); the man pages and completions come from a build for
# this machine.
ARCHES  ?= amd64 arm64
package:
	rm -rf dist/pkgroot && mkdir -p dist/pkgroot/man dist/pkgroot/completions
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags=-s -o dist/tcptune-host ./cmd/tcptune
	dist/tcptune-host man dist/pkgroot/man && gzip -9n dist/pkgroot/man/*.1
	dist/tcptune-host completion bash > dist/pkgroot/completions/tcptune.bash
	dist/tcptune-host completion zsh > dist/pkgroot/completions/_tcptune
	dist/tcptune-host completion fish > dist/pkgroot/completions/tcptune.fish
	set -e; for a in $(ARCHES); do \
		CGO_ENABLED=0 GOOS=linux GOARCH=$$a $(GO) build -trimpath -ldflags=-s -o dist/pkgroot/tcptune ./cmd/tcptune; \
		ARCH=$$a VERSION=$(VERSION) $(GO) run $(NFPM) package -f packaging/nfpm.yaml -p deb -t dist/; \
		ARCH=$$a VERSION=$(VERSION) $(GO) run $(NFPM) package -f packaging/nfpm.yaml -p rpm -t dist/; \
	done

# The Ansible collection on a fleet built in the lab (root): tune.yml and
# mesh.yml through ansible-core over SSH, then the mesh matrix.
fleet-demo: deps build
	@if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	$$SUDO scripts/fleet-lab.sh demo fleet-demo

bench: build
	./bench/loopback.sh

clean:
	rm -rf bin dist
