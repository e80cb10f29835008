# Fails unless the first line of FILE starts with EXPECT.
file(STRINGS "${FILE}" lines LIMIT_COUNT 1)
list(GET lines 0 first)
string(FIND "${first}" "${EXPECT}" pos)
if(NOT pos EQUAL 0)
  message(FATAL_ERROR "first line of ${FILE} is '${first}', expected it to start with '${EXPECT}'")
endif()
