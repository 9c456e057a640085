# Assembles the static site in DIST from the built scripts in BUILD and the shell in WEB:
#   index.html + hwplan_web.js   the served page
#   hwplan.html                  the same page as one self-contained file (script inlined), works from file://
#   hwplan_js.js                 the JSON module for JavaScript callers
# Usage: cmake -DBUILD=... -DWEB=... -DDIST=... -P assemble_dist.cmake
file(MAKE_DIRECTORY "${DIST}")
file(COPY_FILE "${WEB}/shell.html" "${DIST}/index.html" ONLY_IF_DIFFERENT)
file(COPY_FILE "${BUILD}/hwplan_web.js" "${DIST}/hwplan_web.js" ONLY_IF_DIFFERENT)
file(COPY_FILE "${BUILD}/hwplan_js.js" "${DIST}/hwplan_js.js" ONLY_IF_DIFFERENT)
file(MAKE_DIRECTORY "${DIST}/examples")
foreach(f course-page.html course-page.js course-page-api.js)
    file(COPY_FILE "${WEB}/examples/${f}" "${DIST}/examples/${f}" ONLY_IF_DIFFERENT)
endforeach()

file(READ "${WEB}/shell.html" shell)
file(READ "${BUILD}/hwplan_web.js" script)
# An inline script ends at the first "</script": make sure the generated code cannot contain one.
string(FIND "${script}" "</script" closing)
if(NOT closing EQUAL -1)
    message(FATAL_ERROR "hwplan_web.js contains '</script'; it cannot be inlined as is")
endif()
set(tag "<script src=\"hwplan_web.js\"></script>")
string(FIND "${shell}" "${tag}" at)
if(at EQUAL -1)
    message(FATAL_ERROR "web/shell.html lacks the line ${tag}")
endif()
string(REPLACE "${tag}" "<script>\n${script}\n</script>" single "${shell}")
file(WRITE "${DIST}/hwplan.html.tmp" "${single}")
file(COPY_FILE "${DIST}/hwplan.html.tmp" "${DIST}/hwplan.html" ONLY_IF_DIFFERENT)
file(REMOVE "${DIST}/hwplan.html.tmp")
