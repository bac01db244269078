// libcurl as the client's one transport (Debian: libcurl4-openssl-dev). Swift cannot call C
// variadic functions, so each kind of curl_easy_setopt / curl_easy_getinfo argument gets a
// typed wrapper here.
#ifndef INTAKE_CCURL_SHIM_H
#define INTAKE_CCURL_SHIM_H

#include <curl/curl.h>

static inline CURLcode intake_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode intake_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode intake_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode intake_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode intake_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode intake_curl_set_write_function(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode intake_curl_set_progress_function(CURL *handle, curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

static inline CURLcode intake_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode intake_curl_get_certificates(CURL *handle, struct curl_certinfo **value) {
    return curl_easy_getinfo(handle, CURLINFO_CERTINFO, value);
}

#endif
