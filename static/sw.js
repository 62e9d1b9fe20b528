/* Game-Night Companion service worker.
 *
 * Static files: cache first (the cache's name follows their content, see self.COMPANION.version).
 * Pages: network first; the last copy of a page seen on this phone, or the offline page, when the
 * companion cannot be reached. A form sent while the companion cannot be reached is kept, and the
 * page script offers to send it again.
 * The site serves this file at /sw.js and puts self.COMPANION (version, URLs) in front of it.
 */
"use strict";

var settings = self.COMPANION || { version: "dev", offline: "/offline", static: "/static/", precache: [] };
var STATIC_CACHE = "companion-static-" + settings.version;
var PAGE_CACHE = "companion-pages";
// Read by static/live.js, which moves the forms kept here into the page's localStorage.
var UNSENT_CACHE = "companion-unsent";
var PAGES_KEPT = 30;

// Static files never need the phone's cookies; leaving them out also keeps an answer from putting
// back an older session cookie while a form is on its way.
function withoutCookies(url) {
  return new Request(url, { credentials: "omit" });
}

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(STATIC_CACHE)
      .then(function (cache) {
        return cache.addAll(settings.precache.map(function (url) {
          // the offline page is in the phone's chosen language, which a cookie says
          return url === settings.offline ? url : withoutCookies(url);
        }));
      })
      .then(function () { return self.skipWaiting(); })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) {
        return name.indexOf("companion-static-") === 0 && name !== STATIC_CACHE;
      }).map(function (name) { return caches.delete(name); }));
    }).then(function () { return self.clients.claim(); })
  );
});

function isStatic(url) {
  return url.pathname.indexOf(settings.static) === 0;
}

function cacheFirst(request) {
  return caches.open(STATIC_CACHE).then(function (cache) {
    return cache.match(request).then(function (hit) {
      if (hit) { return hit; }
      return fetch(withoutCookies(request.url)).then(function (response) {
        if (response.ok && response.type === "basic") { cache.put(request, response.clone()); }
        return response;
      });
    });
  });
}

function keepPage(url, response) {
  return caches.open(PAGE_CACHE).then(function (cache) {
    return cache.put(url, response).then(function () { return cache.keys(); }).then(function (keys) {
      // the oldest copies go first: a phone keeps the pages of its latest game nights
      return Promise.all(keys.slice(0, Math.max(0, keys.length - PAGES_KEPT)).map(function (key) {
        return cache.delete(key);
      }));
    });
  });
}

function offlinePage() {
  return caches.match(settings.offline, { ignoreSearch: true }).then(function (hit) {
    return hit || new Response(settings.offline_text || "Offline", {
      status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" }
    });
  });
}

function networkFirst(event) {
  var request = event.request;
  return fetch(request).then(function (response) {
    if (response.ok && response.type === "basic") {
      event.waitUntil(keepPage(request.url, response.clone()));
    }
    return response;
  }, function () {
    return caches.match(request.url, { cacheName: PAGE_CACHE }).then(function (hit) {
      return hit || offlinePage();
    });
  });
}

function keepUnsent(copy) {
  return copy.formData().then(function (data) {
    var fields = [];
    var complete = true;
    data.forEach(function (value, name) {
      if (typeof value === "string") { fields.push([name, value]); } else { complete = false; }
    });
    if (!complete) { return false; }  // a file cannot be kept; the person chooses it again
    var entry = { action: copy.url, fields: fields, page: copy.referrer, what: "", at: Date.now() };
    var key = new URL("unsent/" + entry.at + "-" + Math.random().toString(36).slice(2), self.registration.scope);
    return caches.open(UNSENT_CACHE).then(function (cache) {
      return cache.put(key.href, new Response(JSON.stringify(entry), {
        headers: { "Content-Type": "application/json" }
      }));
    }).then(function () { return true; });
  }).catch(function () { return false; });
}

function sendForm(event) {
  var copy = event.request.clone();
  return fetch(event.request).then(function (response) {
    // the change reached the companion: copies of pages from before it are out of date now
    event.waitUntil(caches.delete(PAGE_CACHE));
    return response;
  }, function () {
    return keepUnsent(copy).then(function (kept) {
      var target = new URL(settings.offline, self.registration.scope);
      if (kept) { target.search = "unsent"; }
      return Response.redirect(target.href, 303);
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) { return; }
  if (request.method === "GET" && isStatic(url)) {
    event.respondWith(cacheFirst(request));
  } else if (request.mode === "navigate" && request.method === "GET") {
    event.respondWith(networkFirst(event));
  } else if (request.mode === "navigate" && request.method === "POST") {
    event.respondWith(sendForm(event));
  }
});
